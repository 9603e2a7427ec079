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
    SampleType UInt8,
    Direction Enum8('undefined' = 0, 'ingress' = 1, 'egress' = 2) DEFAULT multiIf(SourceIdType = 0 AND SourceIdIndex != 0 AND InIfFormat = 0 AND SourceIdIndex = InIf, 'ingress', SourceIdType = 0 AND SourceIdIndex != 0 AND OutIfFormat = 0 AND SourceIdIndex = OutIf, 'egress', 'undefined'),
    DiscardReason UInt32,
    ForwardingStatus UInt8,
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
    InVlan UInt16,
    OutVlan UInt16,
    EType UInt16,
    MPLSLabels UInt8,
    MPLSTopLabel UInt32,
    SrcAddr IPv6 CODEC(ZSTD(1)),
    DstAddr IPv6 CODEC(ZSTD(1)),
    Proto UInt8,
    SrcPort UInt16,
    DstPort UInt16,
    TCPFlags UInt8,
    IPTos UInt8,
    IPTTL UInt8,
    NextHop IPv6,
    SrcNetMask UInt8,
    DstNetMask UInt8,
    SrcAS UInt32,
    DstAS UInt32,
    SrcPeerAS UInt32,
    DstASPath Array(UInt32),
    Encapsulation UInt8,
    TunnelId UInt32,
    InnerSrcAddr IPv6,
    InnerDstAddr IPv6,
    InnerProto UInt8,
    InnerSrcPort UInt16,
    InnerDstPort UInt16,
    Bytes UInt64 CODEC(T64, LZ4),
    Packets UInt64 CODEC(T64, LZ4),
    SRv6SegmentsLeft UInt8,
    SRv6Segments Array(IPv6),
    IngestStream UInt32,
    IngestOffset UInt64 CODEC(DoubleDelta, LZ4),
    DatagramIncomplete UInt8,
    ExporterName LowCardinality(String),
    ExporterGroup LowCardinality(String),
    ExporterRole LowCardinality(String),
    ExporterSite LowCardinality(String),
    ExporterRegion LowCardinality(String),
    ExporterTenant LowCardinality(String),
    InIfName LowCardinality(String),
    InIfDescription LowCardinality(String),
    InIfSpeed UInt32,
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider LowCardinality(String),
    InIfConnectivity LowCardinality(String),
    OutIfName LowCardinality(String),
    OutIfDescription LowCardinality(String),
    OutIfSpeed UInt32,
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfProvider LowCardinality(String),
    OutIfConnectivity LowCardinality(String),
    SrcCountry LowCardinality(String),
    SrcNetName LowCardinality(String),
    SrcNetRole LowCardinality(String),
    SrcNetSite LowCardinality(String),
    SrcNetRegion LowCardinality(String),
    SrcNetTenant LowCardinality(String),
    DstCountry LowCardinality(String),
    DstNetName LowCardinality(String),
    DstNetRole LowCardinality(String),
    DstNetSite LowCardinality(String),
    DstNetRegion LowCardinality(String),
    DstNetTenant LowCardinality(String),
    INDEX SrcAddr_idx SrcAddr TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX DstAddr_idx DstAddr TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX SrcPort_idx SrcPort TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX DstPort_idx DstPort TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX SrcAS_idx SrcAS TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX DstAS_idx DstAS TYPE bloom_filter(0.001) GRANULARITY 4
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, InIf, OutIf)
TTL TimeReceived + INTERVAL 15 DAY;

CREATE TABLE IF NOT EXISTS vecflow.drops
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
    SampleType UInt8,
    Direction Enum8('undefined' = 0, 'ingress' = 1, 'egress' = 2) DEFAULT multiIf(SourceIdType = 0 AND SourceIdIndex != 0 AND InIfFormat = 0 AND SourceIdIndex = InIf, 'ingress', SourceIdType = 0 AND SourceIdIndex != 0 AND OutIfFormat = 0 AND SourceIdIndex = OutIf, 'egress', 'undefined'),
    DiscardReason UInt32,
    ForwardingStatus UInt8,
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
    InVlan UInt16,
    OutVlan UInt16,
    EType UInt16,
    MPLSLabels UInt8,
    MPLSTopLabel UInt32,
    SrcAddr IPv6 CODEC(ZSTD(1)),
    DstAddr IPv6 CODEC(ZSTD(1)),
    Proto UInt8,
    SrcPort UInt16,
    DstPort UInt16,
    TCPFlags UInt8,
    IPTos UInt8,
    IPTTL UInt8,
    NextHop IPv6,
    SrcNetMask UInt8,
    DstNetMask UInt8,
    SrcAS UInt32,
    DstAS UInt32,
    SrcPeerAS UInt32,
    DstASPath Array(UInt32),
    Encapsulation UInt8,
    TunnelId UInt32,
    InnerSrcAddr IPv6,
    InnerDstAddr IPv6,
    InnerProto UInt8,
    InnerSrcPort UInt16,
    InnerDstPort UInt16,
    Bytes UInt64 CODEC(T64, LZ4),
    Packets UInt64 CODEC(T64, LZ4),
    SRv6SegmentsLeft UInt8,
    SRv6Segments Array(IPv6),
    IngestStream UInt32,
    IngestOffset UInt64 CODEC(DoubleDelta, LZ4),
    DatagramIncomplete UInt8,
    ExporterName LowCardinality(String),
    ExporterGroup LowCardinality(String),
    ExporterRole LowCardinality(String),
    ExporterSite LowCardinality(String),
    ExporterRegion LowCardinality(String),
    ExporterTenant LowCardinality(String),
    InIfName LowCardinality(String),
    InIfDescription LowCardinality(String),
    InIfSpeed UInt32,
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider LowCardinality(String),
    InIfConnectivity LowCardinality(String),
    OutIfName LowCardinality(String),
    OutIfDescription LowCardinality(String),
    OutIfSpeed UInt32,
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfProvider LowCardinality(String),
    OutIfConnectivity LowCardinality(String),
    SrcCountry LowCardinality(String),
    SrcNetName LowCardinality(String),
    SrcNetRole LowCardinality(String),
    SrcNetSite LowCardinality(String),
    SrcNetRegion LowCardinality(String),
    SrcNetTenant LowCardinality(String),
    DstCountry LowCardinality(String),
    DstNetName LowCardinality(String),
    DstNetRole LowCardinality(String),
    DstNetSite LowCardinality(String),
    DstNetRegion LowCardinality(String),
    DstNetTenant LowCardinality(String),
    DiscardReasonName LowCardinality(String),
    INDEX SrcAddr_idx SrcAddr TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX DstAddr_idx DstAddr TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX SrcPort_idx SrcPort TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX DstPort_idx DstPort TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX SrcAS_idx SrcAS TYPE bloom_filter(0.001) GRANULARITY 4,
    INDEX DstAS_idx DstAS TYPE bloom_filter(0.001) GRANULARITY 4
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, DiscardReason, InIf)
TTL TimeReceived + INTERVAL 30 DAY;

CREATE TABLE IF NOT EXISTS vecflow.if_counters
(
    TimeReceived DateTime CODEC(DoubleDelta, LZ4),
    AgentAddress IPv6,
    SubAgentId UInt32,
    SampleSequence UInt32,
    SourceIdType UInt8,
    SourceIdIndex UInt32,
    IfIndex UInt32,
    IfName LowCardinality(String),
    IfType UInt32,
    IfSpeed UInt64,
    IfDirection UInt8,
    IfAdminUp UInt8,
    IfOperUp UInt8,
    InOctets UInt64 CODEC(T64, LZ4),
    InUcastPkts UInt64 CODEC(T64, LZ4),
    InMulticastPkts UInt64 CODEC(T64, LZ4),
    InBroadcastPkts UInt64 CODEC(T64, LZ4),
    InDiscards UInt64 CODEC(T64, LZ4),
    InErrors UInt64 CODEC(T64, LZ4),
    InUnknownProtos UInt64 CODEC(T64, LZ4),
    OutOctets UInt64 CODEC(T64, LZ4),
    OutUcastPkts UInt64 CODEC(T64, LZ4),
    OutMulticastPkts UInt64 CODEC(T64, LZ4),
    OutBroadcastPkts UInt64 CODEC(T64, LZ4),
    OutDiscards UInt64 CODEC(T64, LZ4),
    OutErrors UInt64 CODEC(T64, LZ4),
    Promiscuous UInt8,
    HasEthernet UInt8,
    Dot3AlignmentErrors UInt64 CODEC(T64, LZ4),
    Dot3FCSErrors UInt64 CODEC(T64, LZ4),
    Dot3SingleCollisionFrames UInt64 CODEC(T64, LZ4),
    Dot3MultipleCollisionFrames UInt64 CODEC(T64, LZ4),
    Dot3LateCollisions UInt64 CODEC(T64, LZ4),
    Dot3ExcessiveCollisions UInt64 CODEC(T64, LZ4),
    Dot3InternalMacTransmitErrors UInt64 CODEC(T64, LZ4),
    Dot3CarrierSenseErrors UInt64 CODEC(T64, LZ4),
    Dot3FrameTooLongs UInt64 CODEC(T64, LZ4),
    Dot3InternalMacReceiveErrors UInt64 CODEC(T64, LZ4),
    Dot3SymbolErrors UInt64 CODEC(T64, LZ4),
    IngestStream UInt32,
    IngestOffset UInt64 CODEC(DoubleDelta, LZ4)
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (AgentAddress, IfIndex, TimeReceived)
TTL TimeReceived + INTERVAL 30 DAY;

CREATE TABLE IF NOT EXISTS vecflow.agents
(
    TimeReceived DateTime CODEC(DoubleDelta, LZ4),
    AgentAddress IPv6,
    SubAgentId UInt32,
    SourceIdType UInt8,
    SourceIdIndex UInt32,
    SampleFamily UInt8,
    Datagrams UInt64,
    DatagramsLost UInt64,
    DatagramsReordered UInt64,
    Resets UInt64,
    Samples UInt64,
    SamplesLost UInt64,
    SamplesReordered UInt64,
    ReportedDrops UInt64,
    DatagramsDuplicated UInt64,
    IngestStream UInt32,
    IngestOffset UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (AgentAddress, SubAgentId, SourceIdType, SourceIdIndex, SampleFamily, TimeReceived)
TTL TimeReceived + INTERVAL 90 DAY;

CREATE TABLE IF NOT EXISTS vecflow.lb_decisions
(
    TimeReceived DateTime CODEC(DoubleDelta, LZ4),
    AgentAddress IPv6,
    Algorithm LowCardinality(String),
    VIP IPv6,
    VIPPort UInt16,
    Proto UInt8,
    Backend IPv6,
    ChoiceIndex UInt8,
    Decision LowCardinality(String),
    Policy LowCardinality(String),
    PolicyMetric Float64,
    Flows UInt64,
    Candidates Array(IPv6),
    FlowletId UInt32,
    PathWeight Float64,
    PathId UInt16,
    SubAgentId UInt32,
    IngestStream UInt32,
    IngestOffset UInt64 CODEC(DoubleDelta, LZ4)
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, VIP, VIPPort, Backend)
TTL TimeReceived + INTERVAL 30 DAY;

CREATE TABLE IF NOT EXISTS vecflow.lb_counters
(
    TimeReceived DateTime CODEC(DoubleDelta, LZ4),
    AgentAddress IPv6,
    SubAgentId UInt32,
    SampleSequence UInt32,
    SourceIdIndex UInt32,
    Role LowCardinality(String),
    VIPIndex UInt32,
    VIP IPv6,
    VIPPort UInt16,
    Proto UInt8,
    BackendIndex UInt32,
    Backend IPv6,
    NewFlows UInt64 CODEC(T64, LZ4),
    FirstChoiceAccepts UInt64 CODEC(T64, LZ4),
    SecondChoiceAccepts UInt64 CODEC(T64, LZ4),
    Rejects UInt64 CODEC(T64, LZ4),
    StickyHits UInt64 CODEC(T64, LZ4),
    TableFull UInt64 CODEC(T64, LZ4),
    IngestStream UInt32,
    IngestOffset UInt64 CODEC(DoubleDelta, LZ4)
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (AgentAddress, VIP, VIPPort, BackendIndex, TimeReceived)
TTL TimeReceived + INTERVAL 30 DAY;

CREATE TABLE IF NOT EXISTS vecflow.exporters
(
    TimeReceived DateTime,
    AgentAddress IPv6,
    SubAgentId UInt32,
    Datagrams UInt64
)
ENGINE = ReplacingMergeTree(TimeReceived)
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY (AgentAddress, SubAgentId)
TTL TimeReceived + INTERVAL 31 DAY;

CREATE TABLE IF NOT EXISTS vecflow.interfaces
(
    TimeReceived DateTime,
    AgentAddress IPv6,
    SubAgentId UInt32,
    IfIndex UInt32,
    IfName String,
    IfSpeed UInt64,
    IfType UInt32,
    IfOperUp UInt8
)
ENGINE = ReplacingMergeTree(TimeReceived)
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY (AgentAddress, SubAgentId, IfIndex)
TTL TimeReceived + INTERVAL 31 DAY;

CREATE TABLE IF NOT EXISTS vecflow.asns
(
    TimeReceived DateTime,
    ASN UInt32,
    Name String
)
ENGINE = ReplacingMergeTree(TimeReceived)
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY ASN
TTL TimeReceived + INTERVAL 3650 DAY;

CREATE TABLE IF NOT EXISTS vecflow.flows_1m
(
    TimeReceived DateTime CODEC(DoubleDelta, LZ4),
    AgentAddress IPv6,
    SubAgentId UInt32,
    InIf UInt32,
    OutIf UInt32,
    Vlan UInt16,
    EType UInt16,
    Proto UInt8,
    SrcAS UInt32,
    DstAS UInt32,
    ForwardingStatus UInt8,
    Direction Enum8('undefined' = 0, 'ingress' = 1, 'egress' = 2),
    ExporterName LowCardinality(String),
    InIfName LowCardinality(String),
    OutIfName LowCardinality(String),
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider LowCardinality(String),
    OutIfProvider LowCardinality(String),
    SrcCountry LowCardinality(String),
    DstCountry LowCardinality(String),
    Bytes UInt64 CODEC(T64, LZ4),
    Packets UInt64 CODEC(T64, LZ4),
    Samples UInt64 CODEC(T64, LZ4)
)
ENGINE = SummingMergeTree((Bytes, Packets, Samples))
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry)
TTL TimeReceived + INTERVAL 7 DAY;

CREATE TABLE IF NOT EXISTS vecflow.flows_5m
(
    TimeReceived DateTime CODEC(DoubleDelta, LZ4),
    AgentAddress IPv6,
    SubAgentId UInt32,
    InIf UInt32,
    OutIf UInt32,
    Vlan UInt16,
    EType UInt16,
    Proto UInt8,
    SrcAS UInt32,
    DstAS UInt32,
    ForwardingStatus UInt8,
    Direction Enum8('undefined' = 0, 'ingress' = 1, 'egress' = 2),
    ExporterName LowCardinality(String),
    InIfName LowCardinality(String),
    OutIfName LowCardinality(String),
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider LowCardinality(String),
    OutIfProvider LowCardinality(String),
    SrcCountry LowCardinality(String),
    DstCountry LowCardinality(String),
    Bytes UInt64 CODEC(T64, LZ4),
    Packets UInt64 CODEC(T64, LZ4),
    Samples UInt64 CODEC(T64, LZ4)
)
ENGINE = SummingMergeTree((Bytes, Packets, Samples))
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry)
TTL TimeReceived + INTERVAL 90 DAY;

CREATE TABLE IF NOT EXISTS vecflow.flows_1h
(
    TimeReceived DateTime CODEC(DoubleDelta, LZ4),
    AgentAddress IPv6,
    SubAgentId UInt32,
    InIf UInt32,
    OutIf UInt32,
    Vlan UInt16,
    EType UInt16,
    Proto UInt8,
    SrcAS UInt32,
    DstAS UInt32,
    ForwardingStatus UInt8,
    Direction Enum8('undefined' = 0, 'ingress' = 1, 'egress' = 2),
    ExporterName LowCardinality(String),
    InIfName LowCardinality(String),
    OutIfName LowCardinality(String),
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider LowCardinality(String),
    OutIfProvider LowCardinality(String),
    SrcCountry LowCardinality(String),
    DstCountry LowCardinality(String),
    Bytes UInt64 CODEC(T64, LZ4),
    Packets UInt64 CODEC(T64, LZ4),
    Samples UInt64 CODEC(T64, LZ4)
)
ENGINE = SummingMergeTree((Bytes, Packets, Samples))
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry)
TTL TimeReceived + INTERVAL 365 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS vecflow.flows_1m_mv TO vecflow.flows_1m
AS SELECT toStartOfMinute(TimeReceived) AS TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry, sum(Bytes * SamplingRate) AS Bytes, sum(Packets * SamplingRate) AS Packets, count() AS Samples FROM vecflow.flows GROUP BY TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry;

CREATE MATERIALIZED VIEW IF NOT EXISTS vecflow.flows_5m_mv TO vecflow.flows_5m
AS SELECT toStartOfFiveMinute(TimeReceived) AS TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry, sum(Bytes * SamplingRate) AS Bytes, sum(Packets * SamplingRate) AS Packets, count() AS Samples FROM vecflow.flows GROUP BY TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry;

CREATE MATERIALIZED VIEW IF NOT EXISTS vecflow.flows_1h_mv TO vecflow.flows_1h
AS SELECT toStartOfHour(TimeReceived) AS TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry, sum(Bytes * SamplingRate) AS Bytes, sum(Packets * SamplingRate) AS Packets, count() AS Samples FROM vecflow.flows GROUP BY TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry;

CREATE MATERIALIZED VIEW IF NOT EXISTS vecflow.exporters_mv TO vecflow.exporters
AS SELECT TimeReceived, AgentAddress, SubAgentId, Datagrams FROM vecflow.agents WHERE SampleFamily = 255;

CREATE MATERIALIZED VIEW IF NOT EXISTS vecflow.interfaces_mv TO vecflow.interfaces
AS SELECT TimeReceived, AgentAddress, SubAgentId, IfIndex, toString(IfName) AS IfName, IfSpeed, IfType, IfOperUp FROM vecflow.if_counters;
