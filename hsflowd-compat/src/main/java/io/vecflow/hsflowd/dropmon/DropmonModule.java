package io.vecflow.hsflowd.dropmon;

import io.vecflow.netlink.netdm.NetDm;
import io.vecflow.netlink.netdm.NetDmAlert;
import io.vecflow.sflow.FlowSample;
import io.vecflow.common.LongObjectMap;
import io.vecflow.sflow.SflowFormats;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * hsflowd's mod_dropmon without the sockets: turns NET_DM PACKET_ALERTs into sFlow discarded_packet samples (0:5,
 * sflow_drops.txt) and hands them to a {@link DiscardSink} (the agent's datagram builder).
 *
 * <p>Per alert ({@code docs/netlink.md} §4–§5, host-sflow {@code mod_dropmon.c}):
 * <ol>
 *   <li>Reason: REASON string ({@code rn}); if that is missing or "unknown", the hardware trap name, then its group
 *       ({@code hw} / {@code hw_passive}); if still missing or unknown, the kernel symbol ({@code sw} /
 *       {@code sw_passive}) — {@link DropPoints}. Unlike hsflowd, a later lookup that finds nothing keeps the
 *       earlier "unknown" instead of discarding the drop. No entry, an entry that says "not a drop" (control traps,
 *       socket teardown), or PROTO 0 (buffers freed on teardown) → not reported, counted in {@link #notDrops()} /
 *       {@link #noProto()}.</li>
 *   <li>{@code hide}: a drop whose trap name, symbol or reason matches the regular expression (find) is counted in
 *       {@link #hidden()}.</li>
 *   <li>Rate limit {@code limit} per second: a quota of limit/10 refilled every 100 ms (limit ≥ 10) or of limit
 *       refilled every second (limit &lt; 10); the quota starts full. Over quota → counted in
 *       {@link #rateLimited()}, which is also the sample's cumulative {@code drops} field (as hsflowd).</li>
 *   <li>Sample: source_id 0:input ifIndex (hsflowd keys its notifier by input; 0:0 when the port is unknown), its own
 *       sequence per source from 1, input = IN_PORT ifindex (kernel nest or VPP's flat u32 — hsflowd reads the flat
 *       form as 0, docs/netlink.md §6 rule 14), output 0, reason code. Records in this order: 0:1 sampled_header
 *       (header_protocol 1 Ethernet, frame_length = max(ORIG_LEN, PAYLOAD length) + 4, stripped 4, header = PAYLOAD
 *       cut to TRUNC_LEN and to {@code headerBytes}), 0:1041 extended_hw_trap (group, trap) when a trap name is
 *       present, 0:1038 extended_function (symbol) when present, 0:1042 extended_linux_drop_reason when present,
 *       0:1043 extended_timestamp (ns since the epoch) when NET_DM_ATTR_TIMESTAMP is present. NET_DM carries no egress
 *       queue, transit delay or queue depth, so 0:1036/0:1039/0:1040 never apply. frame_length adds the 4-byte FCS
 *       that stripped = 4 declares (sFlow v5 sampled_header; the psample path does the same), where hsflowd sends
 *       max(ORIG_LEN, PAYLOAD) unchanged.</li>
 * </ol>
 *
 * <p>Circuit breaker {@code max}: NET_DM events are counted per second (per message; hsflowd counts per attribute);
 * after {@code max_trip} consecutive seconds above {@code max} the module stops for good ({@link #tripped()}), the
 * {@link TripListener} is told (the daemon then stops the kernel feed if it started it) and every later alert is
 * counted in {@link #afterTrip()}. {@code max = 0} disables the breaker.
 *
 * <p>Time comes from the supplied clock (ns, monotonic): tests drive it synthetically. {@link #onAlert} allocates
 * nothing after warm-up (a new input port allocates its sequence holder once); the hide regex reuses one matcher.
 * Single-threaded: call {@link #onAlert} and {@link #tick} from one thread.
 */
public final class DropmonModule {
    private static final long DECI_NANOS = 100_000_000L;
    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final long U32 = 0xFFFFFFFFL;
    /** Catch-up bound on clock jumps: beyond this many missed 100 ms ticks the schedule is re-based. */
    private static final int MAX_CATCH_UP = 20;

    /** Receives each discarded_packet sample; the holder is reused after the call returns. */
    @FunctionalInterface
    public interface DiscardSink {
        /**
         * @param sample a 0:5 sample holder, valid only during the call
         * @return true if it was queued for sending
         */
        boolean accept(FlowSample sample);
    }

    /** Told once when the circuit breaker trips. */
    @FunctionalInterface
    public interface TripListener {
        /** @param eventsPerSecond events counted in the second that tripped it */
        void onTrip(long eventsPerSecond);
    }

    private static final class SourceSequence {
        long value;
    }

    private final DropmonSettings settings;
    private final int headerBytes;
    private final DiscardSink sink;
    private final LongSupplier clock;
    private final TripListener tripListener;
    private final DropPoints dropPoints;
    private final boolean swOn;
    private final boolean hwOn;
    private final Matcher hide;
    private final ByteChars chars = new ByteChars();
    private final FlowSample sample = new FlowSample();
    private final LongObjectMap<SourceSequence> sequences = new LongObjectMap<>(16);

    private boolean started;
    private long nextDeci;
    private long nextSecond;
    private int quota;
    private long eventsThisSecond;
    private int secondsOverMax;
    private boolean tripped;

    private long alerts, sent, notDrops, noProto, hidden, rateLimited, sinkRefused, afterTrip;

    /**
     * @param settings     the {@code dropmon} block (validated here)
     * @param headerBytes  hsflowd.conf {@code headerBytes}: the most header bytes a sample carries
     * @param sink         where samples go (e.g. {@code agent::addDiscardSample})
     * @param clockNanos   monotonic clock in ns (e.g. {@code System::nanoTime})
     * @param tripListener told when the circuit breaker trips (may be {@code null})
     * @throws IllegalArgumentException invalid settings (key named) or headerBytes &lt; 1
     */
    public DropmonModule(DropmonSettings settings, int headerBytes, DiscardSink sink, LongSupplier clockNanos,
            TripListener tripListener) {
        this.settings = settings.validate();
        if (headerBytes < 1) {
            throw new IllegalArgumentException("headerBytes must be ≥ 1, got " + headerBytes);
        }
        this.headerBytes = headerBytes;
        this.sink = Objects.requireNonNull(sink);
        this.clock = Objects.requireNonNull(clockNanos);
        this.tripListener = tripListener;
        this.dropPoints = new DropPoints(settings.hwUnknown);
        this.swOn = settings.sw || settings.swPassive;
        this.hwOn = settings.hw || settings.hwPassive;
        this.hide = settings.hide == null ? null : Pattern.compile(settings.hide).matcher("");
    }

    /** Handles one alert (the holder may be reused by the caller after this returns). */
    public void onAlert(NetDmAlert a) {
        advance(clock.getAsLong());
        alerts++;
        if (tripped) {
            afterTrip++;
            return;
        }
        eventsThisSecond++;
        int code = classify(a);
        if (code < 0) {
            notDrops++;
            return;
        }
        if (a.proto() == 0) {
            noProto++;
            return;
        }
        if (hide != null && (hidden(a.hwTrapNameBytes(), a.hwTrapNameLength())
                || hidden(a.symbolBytes(), a.symbolLength()) || hidden(a.reasonBytes(), a.reasonLength()))) {
            hidden++;
            return;
        }
        if (quota <= 0) {
            rateLimited++;
            return;
        }
        quota--;
        fill(a, code);
        if (sink.accept(sample)) {
            sent++;
        } else {
            sinkRefused++;
        }
    }

    /** Reason lookup chain; a negative result means "not reported". */
    private int classify(NetDmAlert a) {
        int code = DropPoints.NOT_FOUND;
        if (settings.rn && a.has(NetDm.ATTR_REASON)) {
            code = dropPoints.reason(a.reasonBytes(), a.reasonLength());
        }
        if ((code == DropPoints.NOT_FOUND || code == DropPoints.UNKNOWN) && hwOn && a.has(NetDm.ATTR_HW_TRAP_NAME)) {
            int c = dropPoints.hwTrap(a.hwTrapGroupBytes(), a.hwTrapGroupLength(), a.hwTrapNameBytes(),
                    a.hwTrapNameLength());
            if (c != DropPoints.NOT_FOUND) {
                code = c;
            }
        }
        if ((code == DropPoints.NOT_FOUND || code == DropPoints.UNKNOWN) && swOn && a.has(NetDm.ATTR_SYMBOL)) {
            int c = dropPoints.symbol(a.symbolBytes(), a.symbolLength());
            if (c != DropPoints.NOT_FOUND) {
                code = c;
            }
        }
        return code;
    }

    private boolean hidden(byte[] b, int n) {
        if (n == 0) {
            return false;
        }
        chars.set(b, n);
        return hide.reset(chars).find();
    }

    private void fill(NetDmAlert a, int code) {
        FlowSample s = sample;
        s.reset();
        long input = a.inPortIfIndex() & U32;
        SourceSequence seq = sequences.get(input);
        if (seq == null) {
            seq = new SourceSequence();
            sequences.put(input, seq);
        }
        seq.value = (seq.value + 1) & U32;
        s.kind = SflowFormats.DISCARDED_PACKET;
        s.expanded = true;
        s.sequenceNumber = seq.value;
        s.sourceIdType = SflowFormats.SOURCE_IFINDEX;
        s.sourceIdIndex = input;
        s.drops = rateLimited & U32;
        s.input = input;
        s.output = 0;
        s.reason = code;

        int h = a.payloadLength();
        if (a.truncLen() > 0 && a.truncLen() < h) {
            h = (int) a.truncLen();
        }
        h = Math.min(h, headerBytes);
        int n = 0;
        s.sampledHeader.headerProtocol = SflowFormats.HEADER_PROTOCOL_ETHERNET;
        s.sampledHeader.frameLength = (Math.max(a.origLen(), a.payloadWireLength()) + 4) & U32;
        s.sampledHeader.stripped = 4;
        s.sampledHeader.header.set(a.payload(), 0, h);
        s.hasSampledHeader = true;
        s.recordFormats[n++] = SflowFormats.SAMPLED_HEADER;
        if (a.has(NetDm.ATTR_HW_TRAP_NAME)) {
            s.hwTrap.group.set(a.hwTrapGroupBytes(), 0, a.hwTrapGroupLength());
            s.hwTrap.trap.set(a.hwTrapNameBytes(), 0, a.hwTrapNameLength());
            s.hasHwTrap = true;
            s.recordFormats[n++] = SflowFormats.EXTENDED_HW_TRAP;
        }
        if (a.has(NetDm.ATTR_SYMBOL)) {
            s.function.set(a.symbolBytes(), 0, a.symbolLength());
            s.hasFunction = true;
            s.recordFormats[n++] = SflowFormats.EXTENDED_FUNCTION;
        }
        if (a.has(NetDm.ATTR_REASON)) {
            s.linuxDropReason.set(a.reasonBytes(), 0, a.reasonLength());
            s.hasLinuxDropReason = true;
            s.recordFormats[n++] = SflowFormats.EXTENDED_LINUX_DROP_REASON;
        }
        if (a.has(NetDm.ATTR_TIMESTAMP)) {
            s.timestampNanos = a.timestampNs();
            s.hasTimestamp = true;
            s.recordFormats[n++] = SflowFormats.EXTENDED_TIMESTAMP;
        }
        s.recordsListed = n;
        s.recordCount = n;
    }

    /** Advances the quota and circuit-breaker schedule to the clock; call at least every 100 ms. */
    public void tick() {
        advance(clock.getAsLong());
    }

    private void advance(long now) {
        if (!started) {
            started = true;
            nextDeci = now + DECI_NANOS;
            nextSecond = now + SECOND_NANOS;
            quota = settings.limit >= 10 ? settings.limit / 10 : settings.limit;
            return;
        }
        int guard = 0;
        while (now - nextDeci >= 0 && guard++ < MAX_CATCH_UP) {
            if (settings.limit >= 10) {
                quota = settings.limit / 10;
            }
            nextDeci += DECI_NANOS;
        }
        if (now - nextDeci >= 0) {
            nextDeci = now + DECI_NANOS; // a long stall: re-base rather than loop
        }
        guard = 0;
        while (now - nextSecond >= 0 && guard++ < MAX_CATCH_UP) {
            secondTick();
            nextSecond += SECOND_NANOS;
        }
        if (now - nextSecond >= 0) {
            secondTick(); // the seconds skipped had no events
            nextSecond = now + SECOND_NANOS;
        }
    }

    private void secondTick() {
        if (settings.max > 0 && !tripped) {
            if (eventsThisSecond > settings.max) {
                if (++secondsOverMax >= settings.maxTrip) {
                    tripped = true;
                    if (tripListener != null) {
                        tripListener.onTrip(eventsThisSecond);
                    }
                }
            } else {
                secondsOverMax = 0;
            }
        }
        eventsThisSecond = 0;
        if (settings.limit < 10) {
            quota = settings.limit;
        }
    }

    /** @return alerts received (every PACKET_ALERT handed to {@link #onAlert}). */
    public long alerts() {
        return alerts;
    }

    /** @return discard samples handed to the sink and accepted. */
    public long sent() {
        return sent;
    }

    /** @return alerts that are not drops (no table entry, or an entry that says so). */
    public long notDrops() {
        return notDrops;
    }

    /** @return drops ignored because PROTO was 0 or absent. */
    public long noProto() {
        return noProto;
    }

    /** @return drops hidden by {@code hide}. */
    public long hidden() {
        return hidden;
    }

    /** @return drops over the {@code limit} quota (the 0:5 {@code drops} field). */
    public long rateLimited() {
        return rateLimited;
    }

    /** @return samples the sink refused (too large for a datagram). */
    public long sinkRefused() {
        return sinkRefused;
    }

    /** @return alerts received after the circuit breaker tripped. */
    public long afterTrip() {
        return afterTrip;
    }

    /** @return true once the circuit breaker has tripped (the module no longer reports drops). */
    public boolean tripped() {
        return tripped;
    }

    /** @return the remaining quota in the current refill period. */
    public int quota() {
        return quota;
    }

    /** @return the drop-point tables in use. */
    public DropPoints dropPoints() {
        return dropPoints;
    }

    /** Read-only CharSequence over ASCII/Latin-1 bytes, reused for the hide regex. */
    private static final class ByteChars implements CharSequence {
        private byte[] b = new byte[0];
        private int n;

        void set(byte[] b, int n) {
            this.b = b;
            this.n = n;
        }

        @Override
        public int length() {
            return n;
        }

        @Override
        public char charAt(int i) {
            return (char) (b[i] & 0xFF);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return toString().substring(start, end);
        }

        @Override
        public String toString() {
            return new String(b, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }
}
