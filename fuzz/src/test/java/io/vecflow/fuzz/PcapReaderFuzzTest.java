package io.vecflow.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vecflow.packet.PcapFormatException;
import io.vecflow.packet.PcapReader;
import io.vecflow.packet.PcapRecord;
import java.io.ByteArrayInputStream;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz target: {@link PcapReader} ({@code new PcapReader(InputStream)}, then {@link PcapReader#next} to the end) on
 * arbitrary bytes (seeds: the pcap files of testdata, cut to 16 KiB, plus byte-order, resolution and raw-IP link-type
 * variants; see {@link SeedCorpus}).
 *
 * <p>A finding is any of:
 * <ul>
 *   <li>an exception other than {@link PcapFormatException} (the stream is in memory, so no other
 *       {@code IOException} can be legitimate), or one whose offset lies outside [-1, len];</li>
 *   <li>a record that does not match the file: its {@code fileOffset} is not where the previous record ended, its
 *       bytes differ from the input's, its length exceeds {@code maxRecordLength()} (262144, or snaplen up to 16 MiB),
 *       or the reader's buffer grew past that cap; more records than the input can hold;</li>
 *   <li>more allocation than the reader's documented bound {@link Alloc#pcapCap} (64 KiB stream buffer, record
 *       buffer grown by doubling up to {@code maxRecordLength()}, small objects), or an input taking over 5 s.</li>
 * </ul>
 */
class PcapReaderFuzzTest {
    private static final String METHOD = "read";

    @FuzzTest(maxDuration = "60s")
    @Timeout(value = 5, unit = TimeUnit.SECONDS)
    void read(byte[] data) throws Throwable {
        Findings.run(getClass(), METHOD, data, () -> {
            long[] cap = {0};
            // The cap depends on the file's snaplen, so the measured call reports its excess over the cap.
            long excess = Alloc.overCap(0, () -> {
                ByteArrayInputStream in = new ByteArrayInputStream(data);
                PcapRecord rec = new PcapRecord();
                long t0 = Alloc.now();
                int max = readAll(in, rec, data);
                long used = Alloc.now() - t0;
                cap[0] = Alloc.cap(Alloc.pcapCap(max), data.length);
                return Math.max(0, used - cap[0]);
            });
            if (excess > 0) {
                throw new Alloc.CapExceeded("PcapReader allocated " + (cap[0] + excess) + " bytes reading a "
                        + data.length + "-byte input (cap " + cap[0] + ", after " + Alloc.RETRIES + " repetitions)");
            }
        });
    }

    /** Reads every record, checking each against the input; returns the reader's record cap (0 if no reader). */
    private static int readAll(ByteArrayInputStream in, PcapRecord rec, byte[] data) {
        int max = 0;
        try (PcapReader r = new PcapReader(in)) {
            max = r.maxRecordLength();
            require(max >= PcapReader.LIBPCAP_MAX_SNAPLEN && max <= PcapReader.SNAPLEN_SANITY_LIMIT,
                    "maxRecordLength out of range");
            require(r.linkType() != null && r.snapLength() >= 0, "link type or snaplen");
            require(data.length >= PcapReader.FILE_HEADER_LENGTH, "file header accepted from a short input");
            long expected = PcapReader.FILE_HEADER_LENGTH;
            int records = 0;
            while (r.next(rec)) {
                records++;
                int n = rec.capturedLength();
                require(records <= (data.length - PcapReader.FILE_HEADER_LENGTH) / PcapReader.RECORD_HEADER_LENGTH,
                        "more records than the input can hold");
                require(rec.fileOffset() == expected, "record fileOffset is not where the previous record ended");
                require(n >= 0 && n <= max, "record longer than maxRecordLength");
                require(rec.data().length <= max, "record buffer grew past maxRecordLength");
                require(rec.originalLength() >= 0 && rec.timestampNanos() >= 0, "orig_len or timestamp negative");
                int from = (int) expected + PcapReader.RECORD_HEADER_LENGTH;
                require(from + (long) n <= data.length
                        && Arrays.equals(rec.data(), 0, n, data, from, from + n), "record bytes differ from input");
                expected = from + (long) n;
            }
            require(expected == data.length, "clean end of file before the end of the input");
        } catch (PcapFormatException e) {
            require(e.getMessage() != null && e.offset() >= -1 && e.offset() <= data.length,
                    "PcapFormatException offset outside [-1, len] or no message");
        } catch (java.io.IOException e) {
            throw new AssertionError("IOException other than PcapFormatException from an in-memory stream", e);
        }
        return max;
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("invariant broken: " + what);
        }
    }
}
