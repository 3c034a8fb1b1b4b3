/**
 * The MySQL outbox tables (schema version 1), a translation of PostgreSQL's: the rows, 64 lanes
 * dispatchers claim, and the idle-listener marks. MySQL has no partial indexes: the indexes lead
 * with `state`. No trigger: MySQL has no LISTEN/NOTIFY, so idle dispatchers poll.
 */

/** Lanes the outbox spreads partition keys over (as on PostgreSQL). */
export const MYSQL_OUTBOX_LANE_COUNT = 64;

const lanes = Array.from({ length: MYSQL_OUTBOX_LANE_COUNT }, (_, lane) => `(${lane})`).join(', ');

export const MYSQL_OUTBOX_V1 = `CREATE TABLE IF NOT EXISTS keiyaku_outbox (
  seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  message_id VARCHAR(255) NOT NULL,
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
  KEY keiyaku_outbox_pending (state, lane, seq),
  KEY keiyaku_outbox_retry (state, next_attempt_at),
  KEY keiyaku_outbox_published (state, finished_at),
  CONSTRAINT keiyaku_outbox_state CHECK (state IN ('pending', 'published', 'dead'))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE IF NOT EXISTS keiyaku_outbox_lanes (
  lane SMALLINT NOT NULL PRIMARY KEY,
  owner VARCHAR(255) NULL,
  lease_until DATETIME(3) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
INSERT IGNORE INTO keiyaku_outbox_lanes (lane) VALUES ${lanes};
CREATE TABLE IF NOT EXISTS keiyaku_outbox_listeners (
  owner VARCHAR(255) NOT NULL PRIMARY KEY,
  idle_until DATETIME(3) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;`;
