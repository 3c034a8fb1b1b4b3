/** @keiyaku/protobuf: the payload codec of messages whose contract schema is Protobuf. */
export {};
