package io.vecflow.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.netdm.NetDmAlert;
import io.vecflow.netlink.netdm.NetDmCodec;
import io.vecflow.netlink.psample.LbDecisionCookie;
import io.vecflow.netlink.psample.PsampleCodec;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.vpp.LbCounters;
import io.vecflow.netlink.vpp.LbCountersCodec;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppIfCountersCodec;
import io.vecflow.netlink.vpp.VppStatus;
import io.vecflow.netlink.vpp.VppStatusCodec;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz target: the netlink codecs the agent parses — {@link PsampleCodec} (PSAMPLE from the kernel or the dataplane,
 * with the LB decision cookie in its USER_COOKIE, {@link LbDecisionCookie#decodeFrom}), {@link NetDmCodec} (NET_DM
 * alerts), and VPP's USERSOCK messages ({@link VppIfCountersCodec}, {@link VppStatusCodec},
 * {@link LbCountersCodec}). The first input byte picks the codec ({@link #CODECS} of them), the rest is one message,
 * handed over in a segment of exactly its length (seeds: one message per codec as the codecs encode them, see
 * {@link SeedCorpus#netlinkSeeds}).
 *
 * <p>A finding is any of: an exception other than {@link NetlinkFormatException} (a read past the message throws
 * {@code IndexOutOfBoundsException}); a {@code NetlinkFormatException} without a field or message, or whose offset
 * lies outside the message (outside the cookie for the cookie's errors); a different outcome for the same bytes at
 * another offset in a larger buffer; an input taking over 5 s.
 */
class NetlinkCodecFuzzTest {
    /** Codecs selected by the first byte. */
    static final int CODECS = 5;
    private static final String METHOD = "decode";

    private final PsampleCodec psample = new PsampleCodec();
    private final NetDmCodec netdm = new NetDmCodec();
    private final VppIfCountersCodec ifCounters = new VppIfCountersCodec();
    private final VppStatusCodec status = new VppStatusCodec();
    private final LbCountersCodec lbCounters = new LbCountersCodec();
    private final PsampleSample sample = new PsampleSample();
    private final LbDecisionCookie cookie = new LbDecisionCookie();

    @FuzzTest(maxDuration = "60s")
    @Timeout(value = 5, unit = TimeUnit.SECONDS)
    void decode(byte[] data) throws Throwable {
        Findings.run(getClass(), METHOD, data, () -> {
            if (data.length == 0) {
                return;
            }
            int codec = (data[0] & 0xFF) % CODECS;
            byte[] msg = Arrays.copyOfRange(data, 1, data.length);
            String exact = outcome(codec, MemorySegment.ofArray(msg), 0, msg.length);
            // the same bytes at offset 13 of a larger buffer (garbage around them): the same outcome
            byte[] big = new byte[msg.length + 29];
            Arrays.fill(big, (byte) 0xA5);
            System.arraycopy(msg, 0, big, 13, msg.length);
            String shifted = outcome(codec, MemorySegment.ofArray(big), 13, msg.length);
            require(exact.equals(shifted), "different outcome at another offset: " + exact + " vs " + shifted);
        });
    }

    /** Decodes, returning "ok:…" or "error:FIELD@OFFSET-from-the-message-start". */
    private String outcome(int codec, MemorySegment seg, long off, int len) {
        try {
            String r = switch (codec) {
                // the cookie's errors are about the cookie's own bytes
                case 0 -> psample.decode(seg, off, len, sample) ? "true " + cookie() : "false";
                case 1 -> Boolean.toString(netdm.decode(seg, off, len, new NetDmAlert()));
                case 2 -> Boolean.toString(ifCounters.decode(seg, off, len, new VppIfCounters()));
                case 3 -> Boolean.toString(status.decode(seg, off, len, new VppStatus()));
                default -> Boolean.toString(lbCounters.decode(seg, off, len, new LbCounters()));
            };
            return "ok:" + r;
        } catch (NetlinkFormatException e) {
            require(e.getMessage() != null && e.field() != null && !e.field().isEmpty(), "an error without a field");
            long rel = e.offset() - off;
            require(rel >= 0 && rel <= len, "error offset " + e.offset() + " outside the message [" + off + ", "
                    + (off + len) + "]: " + e.getMessage());
            return "error:" + e.field() + "@" + rel;
        }
    }

    /** The USER_COOKIE as an LB decision: "cookie:…" or "cookie-error:FIELD@OFFSET" within the cookie. */
    private String cookie() {
        try {
            return "cookie:" + cookie.decodeFrom(sample);
        } catch (NetlinkFormatException e) {
            require(e.getMessage() != null && e.field() != null && !e.field().isEmpty(), "a cookie error without a "
                    + "field");
            require(e.offset() >= 0 && e.offset() <= sample.userCookieLength(), "cookie error offset " + e.offset()
                    + " outside the cookie's " + sample.userCookieLength() + " bytes: " + e.getMessage());
            return "cookie-error:" + e.field() + "@" + e.offset();
        }
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("invariant broken: " + what);
        }
    }
}
