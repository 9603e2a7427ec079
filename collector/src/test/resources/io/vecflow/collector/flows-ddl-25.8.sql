CREATE TABLE IF NOT EXISTS vecflow.flows
(
    TimeReceived DateTime CODEC(DoubleDelta, LZ4),
    TimeReceivedNanos UInt64,
    AgentAddress IPv6,
    PeerAddress IPv6,
    SubAgentId UInt32,
    DatagramSequence UInt32,
    SampleSequence UInt32,
    SourceIdType UInt8,
    SourceIdIndex UInt32,
    SamplingRate UInt32,
    SamplePool UInt32,
    Drops UInt32,
    InIfFormat UInt8,
    InIf UInt32,
    OutIfFormat UInt8,
    OutIf UInt32,
    HeaderProtocol UInt32,
    FrameLength UInt32,
    SrcMAC UInt64,
    DstMAC UInt64,
    Vlan UInt16,
    EType UInt16,
    SrcAddr IPv6 CODEC(ZSTD(1)),
    DstAddr IPv6 CODEC(ZSTD(1)),
    Proto UInt8,
    SrcPort UInt16,
    DstPort UInt16,
    TCPFlags UInt8,
    IPTos UInt8,
    IPTTL UInt8,
    Bytes UInt64 CODEC(T64, LZ4),
    Packets UInt64 CODEC(T64, LZ4)
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, InIf, OutIf)
TTL TimeReceived + INTERVAL 15 DAY