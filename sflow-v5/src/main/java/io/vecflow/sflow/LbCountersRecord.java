package io.vecflow.sflow;

/**
 * The "vecflow LB counters" counter record: one load-balancer VIP's, or one VIP backend's, cumulative decision
 * counters (docs/load-balancing.md §1 Maglev, §3 SRLB/6LB; issue 6 §4), carried in a counters sample (0:4) next to the
 * interface counters. An enterprise record (sFlow v5 §5: {@code data_format = enterprise << 12 | format}), format
 * {@value #FORMAT}, under the same configurable enterprise as the decision flow record ({@link LbDecisionRecord}:
 * hsflowd.conf {@code psample { lbEnterprise = N }}, default {@value LbDecisionRecord#DEFAULT_ENTERPRISE}). The
 * generic {@link SflowDecoder} keeps it as an unknown (vendor) record; consumers that know the enterprise decode the
 * kept body with {@link #decode}. Mutable and reused; decode and encode allocate nothing.
 *
 * <p>XDR (RFC 4506), as documented in the README ("Load-balancer counters"):
 * <pre>
 * /&#42; opaque = counter_data; enterprise = lbEnterprise; format = 2 &#42;/
 * struct vecflow_lb_counters {
 *   unsigned int version;                 /&#42; 1 &#42;/
 *   unsigned int role;                    /&#42; 1 maglev LB, 2 srlb LB, 3 srlb server agent &#42;/
 *   unsigned int vip_index;               /&#42; the dataplane's stable VIP index (LB: slot 0..255; agent: 0..15)
 * &#42;/   unsigned int protocol;                /&#42; VIP protocol (6 TCP, 17 UDP), 0 = all protocols &#42;/
 *   unsigned int vip_port;                /&#42; VIP port, 0 = all ports &#42;/
 *   address vip;                          /&#42; sFlow address: type 1 IPv4 / 2 IPv6 &#42;/
 *   unsigned int backend_index;           /&#42; 0 = the VIP's totals, else backend slot + 1 &#42;/
 *   address backend;                      /&#42; type 0 (unknown) for the VIP's totals &#42;/
 *   unsigned hyper new_flows;             /&#42; flows, cumulative &#42;/
 *   unsigned hyper first_choice_accepts;  /&#42; flows &#42;/
 *   unsigned hyper second_choice_accepts; /&#42; flows &#42;/
 *   unsigned hyper rejects;               /&#42; refusals (flows) &#42;/
 *   unsigned hyper sticky_hits;           /&#42; packets &#42;/
 *   unsigned hyper table_full;            /&#42; packets &#42;/
 * }
 * </pre>
 * All counters are totals since the VIP (or the backend in the VIP) was added, like interface counters; a drop to a
 * smaller value is a reset. Their precise meaning per role is in the README and in {@code LoadBalancer} of the
 * dataplane. 84 bytes for IPv4 VIP totals up to 112 bytes for an IPv6 VIP and backend ({@link #MAX_BYTES}).
 *
 * <p>Decoding is bounded by the record's declared length: every field is checked against it, address types other
 * than 0/1/2 fail; failures name the field and its offset ({@link SflowDecodeException}). A version other than 1 is
 * reported by {@link #decode} returning false. Bytes after table_full are ignored (room for appended fields).
 */
public final class LbCountersRecord {
    /** Record format within the enterprise. */
    public static final int FORMAT = 2;
    /** Layout version written and read. */
    public static final int VERSION = 1;
    /** Roles: a Maglev VIP of the LB, an SRLB VIP of the LB, a VIP of an SRLB server agent. */
    public static final int ROLE_MAGLEV = 1, ROLE_SRLB_LB = 2, ROLE_SRLB_AGENT = 3;
    /** Largest body in bytes: 6 words + 2 IPv6 addresses (20 bytes each) + 6 hypers. */
    public static final int MAX_BYTES = 6 * 4 + 2 * 20 + 6 * 8;

    /** version (1). */
    public int version = VERSION;
    /** role, 1..3 (other values kept as read). */
    public int role;
    /** VIP index (u32). */
    public long vipIndex;
    /** VIP protocol (u32; 0 all). */
    public long protocol;
    /** VIP port (u32; 0 all). */
    public long vipPort;
    /** The VIP. */
    public final SflowAddress vip = new SflowAddress();
    /** 0 for the VIP's totals, else backend slot + 1 (u32). */
    public long backendIndex;
    /** The backend (unknown type for the VIP's totals). */
    public final SflowAddress backend = new SflowAddress();
    /** Counters (u64, two's complement in a long). */
    public long newFlows, firstChoiceAccepts, secondChoiceAccepts, rejects, stickyHits, tableFull;

    private final XdrReader r = new XdrReader();

    /** An empty record. */
    public LbCountersRecord() {}

    /**
     * @param enterprise enterprise number, 1..{@link LbDecisionRecord#MAX_ENTERPRISE}
     * @return the record's data_format: {@code enterprise << 12 | 2}
     * @throws IllegalArgumentException an enterprise outside 1..2^20−1
     */
    public static int dataFormat(int enterprise) {
        return LbDecisionRecord.dataFormat(enterprise) - LbDecisionRecord.FORMAT + FORMAT;
    }

    /** Clears every field; returns this. */
    public LbCountersRecord clear() {
        version = VERSION;
        role = 0;
        vipIndex = protocol = vipPort = backendIndex = 0;
        newFlows = firstChoiceAccepts = secondChoiceAccepts = rejects = stickyHits = tableFull = 0;
        vip.clear();
        backend.clear();
        return this;
    }

    /** @return the encoded body length in bytes. */
    public int encodedBytes() {
        return 20 + 4 + vip.length() + 4 + 4 + backend.length() + 48;
    }

    /** Writes the record body (no data_format/length wrapper) at the writer's position. */
    public void encode(XdrWriter w) {
        w.u32(version).u32(role).u32(vipIndex).u32(protocol).u32(vipPort).address(vip).u32(backendIndex)
                .address(backend).u64(newFlows).u64(firstChoiceAccepts).u64(secondChoiceAccepts).u64(rejects)
                .u64(stickyHits).u64(tableFull);
    }

    /**
     * Reads a record body (cleared first).
     *
     * @param buf buffer holding the body (e.g. a kept unknown record's {@link ByteView})
     * @param off body offset
     * @param len the record's declared length in bytes; nothing past {@code off + len} is read
     * @return false when the version is not 1 (nothing else read), true otherwise
     * @throws SflowDecodeException a field past the declared length (TRUNCATED), an address type other than 0/1/2,
     *     an offset/length outside the buffer — named with its offset in {@code buf}. The exception is reused.
     */
    public boolean decode(byte[] buf, int off, int len) throws SflowDecodeException {
        clear();
        r.buf = buf;
        int end = off + len;
        if (off < 0 || len < 0 || end > buf.length) {
            throw r.fail(DecodeError.LENGTH_OUT_OF_BOUNDS, "vecflow_lb_counters", off, len);
        }
        long v = r.u32(off, end, "vecflow_lb_counters.version");
        if (v != VERSION) {
            version = (int) v;
            return false;
        }
        role = r.i32(off + 4, end, "vecflow_lb_counters.role");
        vipIndex = r.u32(off + 8, end, "vecflow_lb_counters.vip_index");
        protocol = r.u32(off + 12, end, "vecflow_lb_counters.protocol");
        vipPort = r.u32(off + 16, end, "vecflow_lb_counters.vip_port");
        int p = r.address(off + 20, end, "vecflow_lb_counters.vip", vip);
        backendIndex = r.u32(p, end, "vecflow_lb_counters.backend_index");
        p = r.address(p + 4, end, "vecflow_lb_counters.backend", backend);
        newFlows = r.u64(p, end, "vecflow_lb_counters.new_flows");
        firstChoiceAccepts = r.u64(p + 8, end, "vecflow_lb_counters.first_choice_accepts");
        secondChoiceAccepts = r.u64(p + 16, end, "vecflow_lb_counters.second_choice_accepts");
        rejects = r.u64(p + 24, end, "vecflow_lb_counters.rejects");
        stickyHits = r.u64(p + 32, end, "vecflow_lb_counters.sticky_hits");
        tableFull = r.u64(p + 40, end, "vecflow_lb_counters.table_full");
        return true;
    }

    /** @return the role's name as stored in {@code lb_counters.Role}: maglev, srlb, srlb-agent, or "" if unknown. */
    public String roleName() {
        return switch (role) {
            case ROLE_MAGLEV -> "maglev";
            case ROLE_SRLB_LB -> "srlb";
            case ROLE_SRLB_AGENT -> "srlb-agent";
            default -> "";
        };
    }

    @Override
    public String toString() {
        return "vecflow_lb_counters{role " + role + ' ' + roleName() + ", vip #" + vipIndex + ' ' + vip + " port "
                + vipPort + " proto " + protocol + ", backend #" + backendIndex + ' ' + backend + ", new "
                + newFlows + ", first " + firstChoiceAccepts + ", second " + secondChoiceAccepts + ", rejects "
                + rejects + ", sticky " + stickyHits + ", full " + tableFull + '}';
    }
}
