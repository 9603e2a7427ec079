package io.vecflow.sflow;

/**
 * The "vecflow LB decision" flow record: one load-balancer decision (docs/load-balancing.md §1 Maglev, §3 SRLB/6LB, §4
 * CLOVE) attached to the flow sample of the packet it was made on. An enterprise record (sFlow v5 §5: {@code
 * data_format = enterprise << 12 | format}), format {@value #FORMAT}, under a configurable enterprise number
 * (hsflowd.conf {@code psample { lbEnterprise = N }}; default {@value #DEFAULT_ENTERPRISE}, the IANA PEN that RFC 5612
 * reserves for documentation — sFlow wants the defining organisation's own PEN, and vecflow has none, so deployments
 * set theirs). The generic {@link SflowDecoder} keeps it as an unknown (vendor) record, as every peer does; consumers
 * that know the enterprise decode the kept body with {@link #decode}. Mutable and reused; decode and encode allocate
 * nothing.
 *
 * <p>XDR (RFC 4506), as documented in the README ("Load-balancer decisions"):
 * <pre>
 * /&#42; opaque = flow_data; enterprise = lbEnterprise; format = 1 &#42;/
 * struct vecflow_lb_decision {
 *   unsigned int version;        /&#42; 1 &#42;/
 *   unsigned int kind;           /&#42; 1 maglev_new, 2 sticky_hit, 3 srlb_hunt, 4 srlb_accept_first,
 *                                   5 srlb_accept_second, 6 srlb_reject, 7 clove_flowlet &#42;/
 *   unsigned int protocol;       /&#42; IP protocol of the flow (6 TCP, 17 UDP), 0 unknown &#42;/
 *   unsigned int vip_port;       /&#42; VIP destination port, 0 unknown &#42;/
 *   address vip;                 /&#42; sFlow address: type 1 IPv4 / 2 IPv6 &#42;/
 *   address backend;             /&#42; type 0 (unknown) while not known, e.g. an SRLB hunt leaving the LB &#42;/
 *   address candidates&lt;2&gt;;      /&#42; SRLB candidates in hunting order &#42;/
 *   unsigned int choice_index;   /&#42; 0 none, 1 first candidate, 2 second &#42;/
 *   unsigned int policy_metric;  /&#42; policy input at decision time ×1000 (busy workers 3 → 3000) &#42;/
 *   unsigned int flowlet_id;     /&#42; CLOVE flowlet id, 0 otherwise &#42;/
 *   unsigned int path_weight;    /&#42; CLOVE weight of the chosen path ×1,000,000 &#42;/
 *   unsigned int path_id;        /&#42; CLOVE path: the outer UDP source port selecting it, 0 otherwise &#42;/
 * }
 * </pre>
 * 56 bytes for IPv4 without candidates up to 120 bytes for IPv6 with two ({@link #MAX_BYTES}).
 *
 * <p>Decoding is bounded by the record's declared length: every field is checked against it, the candidate count is
 * capped at {@value #MAX_CANDIDATES}, address types other than 0/1/2 fail; failures name the field and its offset in
 * the buffer ({@link SflowDecodeException}). A version other than 1 is reported by {@link #decode} returning false
 * (the caller keeps the record raw). Bytes after path_id are ignored (room for appended fields).
 */
public final class LbDecisionRecord {
    /** Record format within the enterprise. */
    public static final int FORMAT = 1;
    /** Default enterprise number: 32473, RFC 5612's example PEN for documentation. */
    public static final int DEFAULT_ENTERPRISE = 32473;
    /** Highest enterprise number the 20-bit field carries. */
    public static final int MAX_ENTERPRISE = (1 << 20) - 1;
    /** Layout version written and read. */
    public static final int VERSION = 1;
    /** Most candidates carried. */
    public static final int MAX_CANDIDATES = 2;
    /** Largest body in bytes: 9 words + 4 IPv6 addresses (20 bytes each) + the candidate count word. */
    public static final int MAX_BYTES = 4 * 4 + 2 * 20 + 4 + MAX_CANDIDATES * 20 + 5 * 4;

    /** Decision kinds (the cookie's codes): 1..7. */
    public static final int MAGLEV_NEW = 1, STICKY_HIT = 2, SRLB_HUNT = 3, SRLB_ACCEPT_FIRST = 4,
            SRLB_ACCEPT_SECOND = 5, SRLB_REJECT = 6, CLOVE_FLOWLET = 7;

    /** version (1). */
    public int version = VERSION;
    /** kind, 1..7 (other values are kept as read). */
    public int kind;
    /** IP protocol (u32 on the wire). */
    public long protocol;
    /** VIP port (u32 on the wire). */
    public long vipPort;
    /** The VIP. */
    public final SflowAddress vip = new SflowAddress();
    /** The backend (unknown type when not known). */
    public final SflowAddress backend = new SflowAddress();
    /** Candidates, {@link #candidateCount} used. */
    public final SflowAddress[] candidates = {new SflowAddress(), new SflowAddress()};
    /** Candidates used, 0..2. */
    public int candidateCount;
    /** choice index: 0 none, 1 first, 2 second (u32). */
    public long choiceIndex;
    /** Policy metric ×1000 (u32). */
    public long policyMetric;
    /** CLOVE flowlet id (u32). */
    public long flowletId;
    /** CLOVE path weight ×1,000,000 (u32). */
    public long pathWeight;
    /** CLOVE path id: outer UDP source port (u32 on the wire). */
    public long pathId;

    private final XdrReader r = new XdrReader();

    /** An empty record. */
    public LbDecisionRecord() {}

    /**
     * @param enterprise enterprise number, 1..{@link #MAX_ENTERPRISE} (0 is sFlow.org's own)
     * @return the record's data_format: {@code enterprise << 12 | 1}
     * @throws IllegalArgumentException an enterprise outside 1..2^20−1
     */
    public static int dataFormat(int enterprise) {
        if (enterprise < 1 || enterprise > MAX_ENTERPRISE) {
            throw new IllegalArgumentException("LB decision enterprise " + enterprise + " outside 1.." + MAX_ENTERPRISE
                    + " (0 is reserved for sFlow.org's standard structures)");
        }
        return enterprise << 12 | FORMAT;
    }

    /** Clears every field; returns this. */
    public LbDecisionRecord clear() {
        version = VERSION;
        kind = candidateCount = 0;
        protocol = vipPort = choiceIndex = policyMetric = flowletId = pathWeight = pathId = 0;
        vip.clear();
        backend.clear();
        candidates[0].clear();
        candidates[1].clear();
        return this;
    }

    /** Copies every field of {@code o} into this record; returns this. Allocation-free. */
    public LbDecisionRecord copyFrom(LbDecisionRecord o) {
        version = o.version;
        kind = o.kind;
        protocol = o.protocol;
        vipPort = o.vipPort;
        vip.copyFrom(o.vip);
        backend.copyFrom(o.backend);
        candidates[0].copyFrom(o.candidates[0]);
        candidates[1].copyFrom(o.candidates[1]);
        candidateCount = o.candidateCount;
        choiceIndex = o.choiceIndex;
        policyMetric = o.policyMetric;
        flowletId = o.flowletId;
        pathWeight = o.pathWeight;
        pathId = o.pathId;
        return this;
    }

    /** @return the encoded body length in bytes. */
    public int encodedBytes() {
        int n = 16 + 4 + vip.length() + 4 + backend.length() + 4 + 20;
        for (int i = 0; i < candidateCount; i++) {
            n += 4 + candidates[i].length();
        }
        return n;
    }

    /**
     * Writes the record body (no data_format/length wrapper) at the writer's position.
     *
     * @throws IllegalStateException a candidate count outside 0..2
     */
    public void encode(XdrWriter w) {
        if (candidateCount < 0 || candidateCount > MAX_CANDIDATES) {
            throw new IllegalStateException("candidate count " + candidateCount + " outside 0.." + MAX_CANDIDATES);
        }
        w.u32(version).u32(kind).u32(protocol).u32(vipPort).address(vip).address(backend).u32(candidateCount);
        for (int i = 0; i < candidateCount; i++) {
            w.address(candidates[i]);
        }
        w.u32(choiceIndex).u32(policyMetric).u32(flowletId).u32(pathWeight).u32(pathId);
    }

    /**
     * Reads a record body (cleared first).
     *
     * @param buf buffer holding the body (e.g. a kept unknown record's {@link ByteView})
     * @param off body offset
     * @param len the record's declared length in bytes; nothing past {@code off + len} is read
     * @return false when the version is not 1 (nothing else read), true otherwise
     * @throws SflowDecodeException a field past the declared length (TRUNCATED), a candidate count above 2
     *     (COUNT_OUT_OF_BOUNDS), an address type other than 0/1/2 — named with its offset in {@code buf}. The
     *     exception object is reused by the next call.
     */
    public boolean decode(byte[] buf, int off, int len) throws SflowDecodeException {
        clear();
        r.buf = buf;
        int end = off + len;
        if (off < 0 || len < 0 || end > buf.length) {
            throw r.fail(DecodeError.LENGTH_OUT_OF_BOUNDS, "vecflow_lb_decision", off, len);
        }
        long v = r.u32(off, end, "vecflow_lb_decision.version");
        if (v != VERSION) {
            version = (int) v;
            return false;
        }
        kind = r.i32(off + 4, end, "vecflow_lb_decision.kind");
        protocol = r.u32(off + 8, end, "vecflow_lb_decision.protocol");
        vipPort = r.u32(off + 12, end, "vecflow_lb_decision.vip_port");
        int p = r.address(off + 16, end, "vecflow_lb_decision.vip", vip);
        p = r.address(p, end, "vecflow_lb_decision.backend", backend);
        long n = r.u32(p, end, "vecflow_lb_decision.candidates");
        if (n > MAX_CANDIDATES) {
            throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "vecflow_lb_decision.candidates", p, n);
        }
        p += 4;
        for (int i = 0; i < n; i++) {
            p = r.address(p, end, "vecflow_lb_decision.candidates", candidates[i]);
        }
        candidateCount = (int) n;
        choiceIndex = r.u32(p, end, "vecflow_lb_decision.choice_index");
        policyMetric = r.u32(p + 4, end, "vecflow_lb_decision.policy_metric");
        flowletId = r.u32(p + 8, end, "vecflow_lb_decision.flowlet_id");
        pathWeight = r.u32(p + 12, end, "vecflow_lb_decision.path_weight");
        pathId = r.u32(p + 16, end, "vecflow_lb_decision.path_id");
        return true;
    }

    /**
     * @return the kind's algorithm as {@code lb_decisions.Algorithm}: maglev, srlb, clove, or "" for an unknown kind.
     */
    public String algorithm() {
        return switch (kind) {
            case MAGLEV_NEW, STICKY_HIT -> "maglev";
            case SRLB_HUNT, SRLB_ACCEPT_FIRST, SRLB_ACCEPT_SECOND, SRLB_REJECT -> "srlb";
            case CLOVE_FLOWLET -> "clove";
            default -> "";
        };
    }

    /**
     * @return the kind's decision as {@code lb_decisions.Decision} (the README's vocabulary): new (Maglev, CLOVE),
     *     sticky, hunt, accept (SRLB first or second choice), pass (an SRLB candidate declined), or "unknown"
     */
    public String decision() {
        return switch (kind) {
            case MAGLEV_NEW, CLOVE_FLOWLET -> "new";
            case STICKY_HIT -> "sticky";
            case SRLB_HUNT -> "hunt";
            case SRLB_ACCEPT_FIRST, SRLB_ACCEPT_SECOND -> "accept";
            case SRLB_REJECT -> "pass";
            default -> "unknown";
        };
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("vecflow_lb_decision{kind ").append(kind).append(' ').append(decision())
                .append(", vip ").append(vip).append(" port ").append(vipPort).append(" proto ").append(protocol)
                .append(", backend ").append(backend).append(", candidates [");
        for (int i = 0; i < candidateCount; i++) {
            b.append(i == 0 ? "" : ", ").append(candidates[i]);
        }
        return b.append("], choice ").append(choiceIndex).append(", metric ").append(policyMetric)
                .append(", flowlet ").append(flowletId).append(", weight ").append(pathWeight).append(", path ")
                .append(pathId).append('}').toString();
    }
}
