/** @keiyaku/avro: the payload codec of messages whose contract schema is Avro. */
export {};
