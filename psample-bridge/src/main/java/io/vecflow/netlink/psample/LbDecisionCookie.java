package io.vecflow.netlink.psample;

import io.vecflow.netlink.NetlinkFormatException;
import java.util.Arrays;

/**
 * One load-balancer decision as it travels in a PSAMPLE user cookie ({@link Psample#ATTR_USER_COOKIE}): a mutable,
 * reusable holder with an allocation-free binary codec. The dataplane's LB nodes fill it for the sample of the packet
 * the decision was made on; the hsflowd-compatible agent turns it into the "vecflow LB decision" sFlow flow record
 * (README, "Load-balancer decisions"); the collector stores it in {@code lb_decisions}. Decisions and their terms come
 * from the spec {@code docs/load-balancing.md}: Maglev §1, SRLB/6LB §3 (candidates, connect-if-available), CLOVE §4
 * (flowlets, path weights).
 *
 * <p>Layout, version 1, all integers big-endian (network order), {@code A} = 4 (IPv4) or 16 (IPv6) bytes:
 * <pre>
 * offset  size  field
 *  0      1     version           1
 *  1      1     kind              {@link Kind#code()}: 1 maglev_new .. 7 clove_flowlet
 *  2      1     address_length    4 or 16 (applies to every address below)
 *  3      1     candidate_count   0..2 (SRLB candidates, in hunting order)
 *  4      1     choice_index      0 = none, 1 = first candidate, 2 = second
 *  5      1     protocol          IP protocol of the flow (6 TCP, 17 UDP; 0 unknown)
 *  6      2     vip_port          destination port of the VIP (0 unknown)
 *  8      4     policy_metric     policy input at decision time, ×1000 (e.g. busy workers 3 → 3000), u32
 * 12      4     flowlet_id        CLOVE flowlet id (0 when not CLOVE), u32
 * 16      4     path_weight       CLOVE weight of the chosen path, ×1,000,000 (1.0 → 1000000), u32
 * 20      2     path_id           CLOVE path: the outer UDP source port that selects it (0 when not CLOVE)
 * 22      2     reserved          0 on encode, ignored on decode
 * 24      A     vip
 * 24+A    A     backend           all zero = not known yet (an SRLB hunt leaving the LB)
 * 24+2A   n·A   candidates[n]     n = candidate_count
 * </pre>
 * Total {@code 24 + (2 + n)·A} bytes: 32..40 for IPv4, 56..88 for IPv6 (≤ {@link #MAX_BYTES}).
 *
 * <p>Decoding checks the version, kind, address length, candidate count, choice index (≤ candidate count) and the
 * exact total length; a violation throws {@link NetlinkFormatException} naming the field and its offset. Neither
 * direction allocates. Not thread-safe.
 */
public final class LbDecisionCookie {
    /** The layout version this class writes and reads. */
    public static final int VERSION = 1;
    /** Fixed part before the addresses, bytes. */
    public static final int FIXED_BYTES = 24;
    /** Most SRLB candidates carried (docs/load-balancing.md §3: the usual setup is 2 choices). */
    public static final int MAX_CANDIDATES = 2;
    /** Largest encoded cookie, bytes: IPv6 with two candidates. */
    public static final int MAX_BYTES = FIXED_BYTES + (2 + MAX_CANDIDATES) * 16;

    /**
     * What was decided (docs/load-balancing.md §1, §3, §4). Codes are the cookie's and the sFlow record's {@code kind}.
     */
    public enum Kind {
        /** Maglev placed a new flow (lookup table, no connection-table entry yet). */
        MAGLEV_NEW(1, "maglev", "new"),
        /** A packet of a known flow followed its connection-table / sticky entry. */
        STICKY_HIT(2, "maglev", "sticky"),
        /** SRLB: the LB sent a new flow hunting along its candidates (SRH [c1, c2, LB SID, VIP]). */
        SRLB_HUNT(3, "srlb", "hunt"),
        /** SRLB: the first candidate's server agent accepted (connect-if-available). */
        SRLB_ACCEPT_FIRST(4, "srlb", "accept"),
        /** SRLB: the second candidate accepted (the first passed, or it is the last and must accept). */
        SRLB_ACCEPT_SECOND(5, "srlb", "accept"),
        /** SRLB: a candidate's server agent declined and passed the SYN to the next segment. */
        SRLB_REJECT(6, "srlb", "pass"),
        /** CLOVE: a new flowlet got a path (weighted choice over the discovered outer source ports). */
        CLOVE_FLOWLET(7, "clove", "new");

        private static final Kind[] BY_CODE = {null, MAGLEV_NEW, STICKY_HIT, SRLB_HUNT, SRLB_ACCEPT_FIRST,
            SRLB_ACCEPT_SECOND, SRLB_REJECT, CLOVE_FLOWLET};

        private final int code;
        private final String algorithm;
        private final String decision;

        Kind(int code, String algorithm, String decision) {
            this.code = code;
            this.algorithm = algorithm;
            this.decision = decision;
        }

        /** The wire code, 1..7. */
        public int code() {
            return code;
        }

        /** The algorithm, as the collector's {@code lb_decisions.Algorithm}: maglev, srlb or clove. */
        public String algorithm() {
            return algorithm;
        }

        /** The decision, as {@code lb_decisions.Decision}: new, sticky, hunt, accept or pass. */
        public String decision() {
            return decision;
        }

        /** The kind of a wire code, or {@code null} for an unknown one. Allocation-free. */
        public static Kind of(int code) {
            return code >= 1 && code < BY_CODE.length ? BY_CODE[code] : null;
        }
    }

    private Kind kind;
    private int addressLength;
    private final byte[] vip = new byte[16];
    private final byte[] backend = new byte[16];
    private final byte[] candidates = new byte[16 * MAX_CANDIDATES];
    private int candidateCount;
    private int choiceIndex;
    private int protocol;
    private int vipPort;
    private long policyMetric;
    private long flowletId;
    private long pathWeight;
    private int pathId;

    /** An empty holder (no kind, no addresses). */
    public LbDecisionCookie() {}

    /** Forgets everything; returns this. */
    public LbDecisionCookie clear() {
        kind = null;
        addressLength = candidateCount = choiceIndex = protocol = vipPort = pathId = 0;
        policyMetric = flowletId = pathWeight = 0;
        Arrays.fill(vip, (byte) 0);
        Arrays.fill(backend, (byte) 0);
        Arrays.fill(candidates, (byte) 0);
        return this;
    }

    // ---- setters (fluent) ----

    /** Sets the decision kind. */
    public LbDecisionCookie kind(Kind k) {
        kind = k;
        return this;
    }

    /**
     * Sets the VIP; its length fixes the address family of the whole decision and clears backend and candidates.
     *
     * @param addr 4 (IPv4) or 16 (IPv6) bytes
     * @throws IllegalArgumentException another length
     */
    public LbDecisionCookie vip(byte[] addr) {
        if (addr.length != 4 && addr.length != 16) {
            throw new IllegalArgumentException("VIP must be 4 or 16 bytes, got " + addr.length);
        }
        addressLength = addr.length;
        System.arraycopy(addr, 0, vip, 0, addr.length);
        Arrays.fill(backend, (byte) 0);
        Arrays.fill(candidates, (byte) 0);
        candidateCount = 0;
        return this;
    }

    /**
     * Sets the backend (the server the flow goes to; all zero = not known yet).
     *
     * @throws IllegalArgumentException no VIP set yet, or a length other than the VIP's
     */
    public LbDecisionCookie backend(byte[] addr) {
        checkFamily(addr, "backend");
        System.arraycopy(addr, 0, backend, 0, addressLength);
        return this;
    }

    /**
     * Appends an SRLB candidate (hunting order).
     *
     * @throws IllegalArgumentException no VIP set yet, a length other than the VIP's, or already {@value
     *     #MAX_CANDIDATES} candidates
     */
    public LbDecisionCookie addCandidate(byte[] addr) {
        checkFamily(addr, "candidate");
        if (candidateCount == MAX_CANDIDATES) {
            throw new IllegalArgumentException("at most " + MAX_CANDIDATES + " candidates");
        }
        System.arraycopy(addr, 0, candidates, 16 * candidateCount++, addressLength);
        return this;
    }

    /** Sets the choice index: 0 none, 1 first candidate, 2 second. @throws IllegalArgumentException outside 0..2 */
    public LbDecisionCookie choiceIndex(int v) {
        if (v < 0 || v > MAX_CANDIDATES) {
            throw new IllegalArgumentException("choice index " + v + " outside 0.." + MAX_CANDIDATES);
        }
        choiceIndex = v;
        return this;
    }

    /** Sets the IP protocol (0..255) and the VIP port (0..65535). @throws IllegalArgumentException out of range */
    public LbDecisionCookie flow(int protocol, int vipPort) {
        if (protocol < 0 || protocol > 255 || vipPort < 0 || vipPort > 0xFFFF) {
            throw new IllegalArgumentException("protocol " + protocol + " / VIP port " + vipPort + " out of range");
        }
        this.protocol = protocol;
        this.vipPort = vipPort;
        return this;
    }

    /** Sets the policy metric at decision time, ×1000 (u32; e.g. 3 busy workers → 3000). */
    public LbDecisionCookie policyMetric(long milli) {
        policyMetric = u32(milli, "policy metric");
        return this;
    }

    /**
     * Sets the CLOVE fields.
     *
     * @param flowletId flowlet id (u32)
     * @param pathWeightMicro chosen path's weight ×1,000,000 (u32)
     * @param pathId the outer UDP source port selecting the path (0..65535)
     */
    public LbDecisionCookie clove(long flowletId, long pathWeightMicro, int pathId) {
        if (pathId < 0 || pathId > 0xFFFF) {
            throw new IllegalArgumentException("path id " + pathId + " outside 0..65535");
        }
        this.flowletId = u32(flowletId, "flowlet id");
        this.pathWeight = u32(pathWeightMicro, "path weight");
        this.pathId = pathId;
        return this;
    }

    // ---- getters ----

    /** The kind, or {@code null} when unset. */
    public Kind kind() {
        return kind;
    }

    /** Address length in bytes: 4, 16, or 0 when no VIP is set. */
    public int addressLength() {
        return addressLength;
    }

    /** VIP bytes (owned buffer of 16; valid {@code [0, addressLength())}). */
    public byte[] vip() {
        return vip;
    }

    /** Backend bytes (owned buffer of 16; valid {@code [0, addressLength())}; all zero = unknown). */
    public byte[] backend() {
        return backend;
    }

    /** Whether the backend is known (not all zero). */
    public boolean hasBackend() {
        for (int i = 0; i < addressLength; i++) {
            if (backend[i] != 0) {
                return true;
            }
        }
        return false;
    }

    /** Candidate bytes: candidate {@code i} at {@code [16·i, 16·i + addressLength())}. */
    public byte[] candidates() {
        return candidates;
    }

    /** Number of candidates, 0..2. */
    public int candidateCount() {
        return candidateCount;
    }

    /** Choice index: 0 none, 1 first candidate, 2 second. */
    public int choiceIndex() {
        return choiceIndex;
    }

    /** IP protocol of the flow (0 unknown). */
    public int protocol() {
        return protocol;
    }

    /** VIP port (0 unknown). */
    public int vipPort() {
        return vipPort;
    }

    /** Policy metric ×1000 (u32). */
    public long policyMetric() {
        return policyMetric;
    }

    /** CLOVE flowlet id (u32; 0 when not CLOVE). */
    public long flowletId() {
        return flowletId;
    }

    /** CLOVE path weight ×1,000,000 (u32). */
    public long pathWeight() {
        return pathWeight;
    }

    /** CLOVE path id: the outer UDP source port (0 when not CLOVE). */
    public int pathId() {
        return pathId;
    }

    /** Encoded length in bytes of the current decision: {@code 24 + (2 + candidates)·addressLength}. */
    public int encodedLength() {
        return FIXED_BYTES + (2 + candidateCount) * addressLength;
    }

    // ---- codec ----

    /**
     * Writes the decision (layout in the class comment). Allocation-free.
     *
     * @param dst destination; needs {@link #encodedLength()} bytes from {@code off}
     * @return bytes written
     * @throws IllegalStateException no kind or no VIP, or a choice index above the candidate count
     * @throws IndexOutOfBoundsException {@code dst} too small
     */
    public int encode(byte[] dst, int off) {
        if (kind == null || addressLength == 0) {
            throw new IllegalStateException("LB decision needs a kind and a VIP (kind " + kind + ", address length "
                    + addressLength + ")");
        }
        if (choiceIndex > candidateCount && candidateCount > 0) {
            throw new IllegalStateException("choice index " + choiceIndex + " above candidate count "
                    + candidateCount);
        }
        int len = encodedLength();
        java.util.Objects.checkFromIndexSize(off, len, dst.length);
        dst[off] = VERSION;
        dst[off + 1] = (byte) kind.code;
        dst[off + 2] = (byte) addressLength;
        dst[off + 3] = (byte) candidateCount;
        dst[off + 4] = (byte) choiceIndex;
        dst[off + 5] = (byte) protocol;
        putU16(dst, off + 6, vipPort);
        putU32(dst, off + 8, policyMetric);
        putU32(dst, off + 12, flowletId);
        putU32(dst, off + 16, pathWeight);
        putU16(dst, off + 20, pathId);
        putU16(dst, off + 22, 0);
        int p = off + FIXED_BYTES;
        System.arraycopy(vip, 0, dst, p, addressLength);
        p += addressLength;
        System.arraycopy(backend, 0, dst, p, addressLength);
        p += addressLength;
        for (int i = 0; i < candidateCount; i++) {
            System.arraycopy(candidates, 16 * i, dst, p, addressLength);
            p += addressLength;
        }
        return len;
    }

    /**
     * Reads a decision into this holder (cleared first). Allocation-free on success.
     *
     * @param src buffer
     * @param off offset of the cookie
     * @param len cookie length in bytes (the attribute's payload length)
     * @return this
     * @throws NetlinkFormatException a short cookie, unknown version or kind, bad address length, more than 2
     *     candidates, a choice index above the candidate count, or a length that does not match — the message names
     *     the field and its offset from the start of the cookie
     */
    public LbDecisionCookie decode(byte[] src, int off, int len) throws NetlinkFormatException {
        clear();
        java.util.Objects.checkFromIndexSize(off, len, src.length);
        if (len < FIXED_BYTES) {
            throw new NetlinkFormatException("lb_cookie", 0, "cookie of " + len + " bytes, the fixed part alone is "
                    + FIXED_BYTES);
        }
        int version = src[off] & 0xFF;
        if (version != VERSION) {
            throw new NetlinkFormatException("lb_cookie.version", 0, "version " + version + ", this reader knows "
                    + VERSION);
        }
        Kind k = Kind.of(src[off + 1] & 0xFF);
        if (k == null) {
            throw new NetlinkFormatException("lb_cookie.kind", 1, "unknown kind " + (src[off + 1] & 0xFF)
                    + " (1..7)");
        }
        int a = src[off + 2] & 0xFF;
        if (a != 4 && a != 16) {
            throw new NetlinkFormatException("lb_cookie.address_length", 2, "address length " + a + ", expected 4 "
                    + "or 16");
        }
        int n = src[off + 3] & 0xFF;
        if (n > MAX_CANDIDATES) {
            throw new NetlinkFormatException("lb_cookie.candidate_count", 3, n + " candidates, at most "
                    + MAX_CANDIDATES);
        }
        int choice = src[off + 4] & 0xFF;
        if (choice > MAX_CANDIDATES || (n > 0 && choice > n)) {
            throw new NetlinkFormatException("lb_cookie.choice_index", 4, "choice index " + choice + " with " + n
                    + " candidates");
        }
        int expected = FIXED_BYTES + (2 + n) * a;
        if (len != expected) {
            throw new NetlinkFormatException("lb_cookie", 0, "cookie of " + len + " bytes, version 1 with address "
                    + "length " + a + " and " + n + " candidates is " + expected);
        }
        kind = k;
        addressLength = a;
        candidateCount = n;
        choiceIndex = choice;
        protocol = src[off + 5] & 0xFF;
        vipPort = getU16(src, off + 6);
        policyMetric = getU32(src, off + 8);
        flowletId = getU32(src, off + 12);
        pathWeight = getU32(src, off + 16);
        pathId = getU16(src, off + 20);
        int p = off + FIXED_BYTES;
        System.arraycopy(src, p, vip, 0, a);
        p += a;
        System.arraycopy(src, p, backend, 0, a);
        p += a;
        for (int i = 0; i < n; i++) {
            System.arraycopy(src, p, candidates, 16 * i, a);
            p += a;
        }
        return this;
    }

    /**
     * Reads the decision carried by a sample's USER_COOKIE.
     *
     * @return {@code false} when the sample has no cookie
     * @throws NetlinkFormatException the cookie is not a valid decision (see {@link #decode(byte[], int, int)})
     */
    public boolean decodeFrom(PsampleSample s) throws NetlinkFormatException {
        if (!s.has(Psample.ATTR_USER_COOKIE)) {
            clear();
            return false;
        }
        decode(s.userCookie(), 0, s.userCookieLength());
        return true;
    }

    /** Copies every field of {@code o} into this holder; returns this. */
    public LbDecisionCookie copyFrom(LbDecisionCookie o) {
        kind = o.kind;
        addressLength = o.addressLength;
        System.arraycopy(o.vip, 0, vip, 0, 16);
        System.arraycopy(o.backend, 0, backend, 0, 16);
        System.arraycopy(o.candidates, 0, candidates, 0, candidates.length);
        candidateCount = o.candidateCount;
        choiceIndex = o.choiceIndex;
        protocol = o.protocol;
        vipPort = o.vipPort;
        policyMetric = o.policyMetric;
        flowletId = o.flowletId;
        pathWeight = o.pathWeight;
        pathId = o.pathId;
        return this;
    }

    private void checkFamily(byte[] addr, String what) {
        if (addressLength == 0) {
            throw new IllegalArgumentException("set the VIP before the " + what);
        }
        if (addr.length != addressLength) {
            throw new IllegalArgumentException(what + " must be " + addressLength + " bytes like the VIP, got "
                    + addr.length);
        }
    }

    private static long u32(long v, String field) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(field + " " + v + " outside the u32 range 0..4294967295");
        }
        return v;
    }

    private static void putU16(byte[] b, int i, int v) {
        b[i] = (byte) (v >>> 8);
        b[i + 1] = (byte) v;
    }

    private static void putU32(byte[] b, int i, long v) {
        b[i] = (byte) (v >>> 24);
        b[i + 1] = (byte) (v >>> 16);
        b[i + 2] = (byte) (v >>> 8);
        b[i + 3] = (byte) v;
    }

    private static int getU16(byte[] b, int i) {
        return (b[i] & 0xFF) << 8 | b[i + 1] & 0xFF;
    }

    private static long getU32(byte[] b, int i) {
        return ((long) (b[i] & 0xFF) << 24) | (b[i + 1] & 0xFF) << 16 | (b[i + 2] & 0xFF) << 8 | b[i + 3] & 0xFF;
    }

    @Override
    public String toString() {
        return "LbDecisionCookie{" + kind + ", A=" + addressLength + ", candidates=" + candidateCount + ", choice="
                + choiceIndex + ", proto=" + protocol + ", port=" + vipPort + ", metric=" + policyMetric
                + ", flowlet=" + flowletId + ", weight=" + pathWeight + ", path=" + pathId + "}";
    }
}
