CREATE TABLE IF NOT EXISTS vecflow.flows
(
    TimeReceived DateTime,
    TimeReceivedNanos UInt64,
    AgentAddress FixedString(16),
    PeerAddress FixedString(16),
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
    SrcAddr FixedString(16),
    DstAddr FixedString(16),
    Proto UInt8,
    SrcPort UInt16,
    DstPort UInt16,
    TCPFlags UInt8,
    IPTos UInt8,
    IPTTL UInt8,
    NextHop FixedString(16),
    SrcNetMask UInt8,
    DstNetMask UInt8,
    SrcAS UInt32,
    DstAS UInt32,
    SrcPeerAS UInt32,
    DstASPath Array(UInt32),
    Encapsulation UInt8,
    TunnelId UInt32,
    InnerSrcAddr FixedString(16),
    InnerDstAddr FixedString(16),
    InnerProto UInt8,
    InnerSrcPort UInt16,
    InnerDstPort UInt16,
    Bytes UInt64,
    Packets UInt64,
    SRv6SegmentsLeft UInt8,
    SRv6Segments Array(FixedString(16)),
    IngestStream UInt32,
    IngestOffset UInt64,
    DatagramIncomplete UInt8,
    ExporterName String,
    ExporterGroup String,
    ExporterRole String,
    ExporterSite String,
    ExporterRegion String,
    ExporterTenant String,
    InIfName String,
    InIfDescription String,
    InIfSpeed UInt32,
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider String,
    InIfConnectivity String,
    OutIfName String,
    OutIfDescription String,
    OutIfSpeed UInt32,
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfProvider String,
    OutIfConnectivity String,
    SrcCountry String,
    SrcNetName String,
    SrcNetRole String,
    SrcNetSite String,
    SrcNetRegion String,
    SrcNetTenant String,
    DstCountry String,
    DstNetName String,
    DstNetRole String,
    DstNetSite String,
    DstNetRegion String,
    DstNetTenant String
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, InIf, OutIf);

CREATE TABLE IF NOT EXISTS vecflow.drops
(
    TimeReceived DateTime,
    TimeReceivedNanos UInt64,
    AgentAddress FixedString(16),
    PeerAddress FixedString(16),
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
    SrcAddr FixedString(16),
    DstAddr FixedString(16),
    Proto UInt8,
    SrcPort UInt16,
    DstPort UInt16,
    TCPFlags UInt8,
    IPTos UInt8,
    IPTTL UInt8,
    NextHop FixedString(16),
    SrcNetMask UInt8,
    DstNetMask UInt8,
    SrcAS UInt32,
    DstAS UInt32,
    SrcPeerAS UInt32,
    DstASPath Array(UInt32),
    Encapsulation UInt8,
    TunnelId UInt32,
    InnerSrcAddr FixedString(16),
    InnerDstAddr FixedString(16),
    InnerProto UInt8,
    InnerSrcPort UInt16,
    InnerDstPort UInt16,
    Bytes UInt64,
    Packets UInt64,
    SRv6SegmentsLeft UInt8,
    SRv6Segments Array(FixedString(16)),
    IngestStream UInt32,
    IngestOffset UInt64,
    DatagramIncomplete UInt8,
    ExporterName String,
    ExporterGroup String,
    ExporterRole String,
    ExporterSite String,
    ExporterRegion String,
    ExporterTenant String,
    InIfName String,
    InIfDescription String,
    InIfSpeed UInt32,
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider String,
    InIfConnectivity String,
    OutIfName String,
    OutIfDescription String,
    OutIfSpeed UInt32,
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfProvider String,
    OutIfConnectivity String,
    SrcCountry String,
    SrcNetName String,
    SrcNetRole String,
    SrcNetSite String,
    SrcNetRegion String,
    SrcNetTenant String,
    DstCountry String,
    DstNetName String,
    DstNetRole String,
    DstNetSite String,
    DstNetRegion String,
    DstNetTenant String,
    DiscardReasonName String
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, DiscardReason, InIf);

CREATE TABLE IF NOT EXISTS vecflow.if_counters
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
    SubAgentId UInt32,
    SampleSequence UInt32,
    SourceIdType UInt8,
    SourceIdIndex UInt32,
    IfIndex UInt32,
    IfName String,
    IfType UInt32,
    IfSpeed UInt64,
    IfDirection UInt8,
    IfAdminUp UInt8,
    IfOperUp UInt8,
    InOctets UInt64,
    InUcastPkts UInt64,
    InMulticastPkts UInt64,
    InBroadcastPkts UInt64,
    InDiscards UInt64,
    InErrors UInt64,
    InUnknownProtos UInt64,
    OutOctets UInt64,
    OutUcastPkts UInt64,
    OutMulticastPkts UInt64,
    OutBroadcastPkts UInt64,
    OutDiscards UInt64,
    OutErrors UInt64,
    Promiscuous UInt8,
    HasEthernet UInt8,
    Dot3AlignmentErrors UInt64,
    Dot3FCSErrors UInt64,
    Dot3SingleCollisionFrames UInt64,
    Dot3MultipleCollisionFrames UInt64,
    Dot3LateCollisions UInt64,
    Dot3ExcessiveCollisions UInt64,
    Dot3InternalMacTransmitErrors UInt64,
    Dot3CarrierSenseErrors UInt64,
    Dot3FrameTooLongs UInt64,
    Dot3InternalMacReceiveErrors UInt64,
    Dot3SymbolErrors UInt64,
    IngestStream UInt32,
    IngestOffset UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (AgentAddress, IfIndex, TimeReceived);

CREATE TABLE IF NOT EXISTS vecflow.agents
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
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
ORDER BY (AgentAddress, SubAgentId, SourceIdType, SourceIdIndex, SampleFamily, TimeReceived);

CREATE TABLE IF NOT EXISTS vecflow.lb_decisions
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
    Algorithm String,
    VIP FixedString(16),
    VIPPort UInt16,
    Proto UInt8,
    Backend FixedString(16),
    ChoiceIndex UInt8,
    Decision String,
    Policy String,
    PolicyMetric Float64,
    Flows UInt64,
    Candidates Array(FixedString(16)),
    FlowletId UInt32,
    PathWeight Float64,
    PathId UInt16,
    SubAgentId UInt32,
    IngestStream UInt32,
    IngestOffset UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, VIP, VIPPort, Backend);

CREATE TABLE IF NOT EXISTS vecflow.lb_counters
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
    SubAgentId UInt32,
    SampleSequence UInt32,
    SourceIdIndex UInt32,
    Role String,
    VIPIndex UInt32,
    VIP FixedString(16),
    VIPPort UInt16,
    Proto UInt8,
    BackendIndex UInt32,
    Backend FixedString(16),
    NewFlows UInt64,
    FirstChoiceAccepts UInt64,
    SecondChoiceAccepts UInt64,
    Rejects UInt64,
    StickyHits UInt64,
    TableFull UInt64,
    IngestStream UInt32,
    IngestOffset UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (AgentAddress, VIP, VIPPort, BackendIndex, TimeReceived);

CREATE TABLE IF NOT EXISTS vecflow.exporters
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
    SubAgentId UInt32,
    Datagrams UInt64
)
ENGINE = ReplacingMergeTree(TimeReceived)
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY (AgentAddress, SubAgentId);

CREATE TABLE IF NOT EXISTS vecflow.interfaces
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
    SubAgentId UInt32,
    IfIndex UInt32,
    IfName String,
    IfSpeed UInt64,
    IfType UInt32,
    IfOperUp UInt8
)
ENGINE = ReplacingMergeTree(TimeReceived)
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY (AgentAddress, SubAgentId, IfIndex);

CREATE TABLE IF NOT EXISTS vecflow.asns
(
    TimeReceived DateTime,
    ASN UInt32,
    Name String
)
ENGINE = ReplacingMergeTree(TimeReceived)
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY ASN;

CREATE TABLE IF NOT EXISTS vecflow.flows_1m
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
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
    ExporterName String,
    InIfName String,
    OutIfName String,
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider String,
    OutIfProvider String,
    SrcCountry String,
    DstCountry String,
    Bytes UInt64,
    Packets UInt64,
    Samples UInt64
)
ENGINE = SummingMergeTree((Bytes, Packets, Samples))
PARTITION BY toYYYYMMDD(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry);

CREATE TABLE IF NOT EXISTS vecflow.flows_5m
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
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
    ExporterName String,
    InIfName String,
    OutIfName String,
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider String,
    OutIfProvider String,
    SrcCountry String,
    DstCountry String,
    Bytes UInt64,
    Packets UInt64,
    Samples UInt64
)
ENGINE = SummingMergeTree((Bytes, Packets, Samples))
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry);

CREATE TABLE IF NOT EXISTS vecflow.flows_1h
(
    TimeReceived DateTime,
    AgentAddress FixedString(16),
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
    ExporterName String,
    InIfName String,
    OutIfName String,
    InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    OutIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2),
    InIfProvider String,
    OutIfProvider String,
    SrcCountry String,
    DstCountry String,
    Bytes UInt64,
    Packets UInt64,
    Samples UInt64
)
ENGINE = SummingMergeTree((Bytes, Packets, Samples))
PARTITION BY toYYYYMM(TimeReceived)
ORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry);

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
