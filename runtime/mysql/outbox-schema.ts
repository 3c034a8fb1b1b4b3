/**
 * The MySQL / MariaDB outbox tables (schema version 1), PostgreSQL's translated: the rows and the
 * 64 lanes dispatchers claim. MySQL has no partial indexes, so the indexes lead with `state`: one
 * for the pending rows of a lane in order, with their next attempt's time so that a claim finds its
 * due rows on the index alone (also the dead and published rows by state), one
 * for rows waiting for a retry (the keys they hold back). No trigger and no listener table: MySQL
 * has no LISTEN/NOTIFY, so idle dispatchers poll. Texts are utf8mb4 with a binary collation
 * (compared exactly, as PostgreSQL's `text`), payloads LONGBLOB (any bytes), headers the JSON text.
 * Times are milliseconds since the epoch from the writer's and the dispatcher's clocks; lane leases
 * are `DATETIME(3)` of the server's `UTC_TIMESTAMP(3)` (no session time zone involved).
 */

/** Lanes the outbox spreads partition keys over (as on PostgreSQL). */
export const MYSQL_OUTBOX_LANE_COUNT = 64;

const lanes = Array.from({ length: MYSQL_OUTBOX_LANE_COUNT }, (_, lane) => `(${lane})`).join(', ');

export const MYSQL_OUTBOX_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_outbox (
  seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  message_id TEXT NOT NULL,
  channel VARCHAR(255) NOT NULL,
  address TEXT NOT NULL,
  partition_key TEXT NULL,
  lane SMALLINT NOT NULL,
  type VARCHAR(255) NOT NULL,
  payload LONGBLOB NOT NULL,
  headers LONGTEXT NOT NULL,
  created_at BIGINT NOT NULL,
  state VARCHAR(16) NOT NULL DEFAULT 'pending',
  attempts INT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL DEFAULT 0,
  last_error LONGTEXT NULL,
  finished_at BIGINT NULL,
  KEY keiyaku_outbox_pending (state, lane, seq, next_attempt_at),
  KEY keiyaku_outbox_retry (state, next_attempt_at),
  CONSTRAINT keiyaku_outbox_state CHECK (state IN ('pending', 'published', 'dead'))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE IF NOT EXISTS keiyaku_outbox_lanes (
  lane SMALLINT NOT NULL PRIMARY KEY,
  owner VARCHAR(255) NULL,
  lease_until DATETIME(3) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
INSERT IGNORE INTO keiyaku_outbox_lanes (lane) VALUES ${lanes};`;
