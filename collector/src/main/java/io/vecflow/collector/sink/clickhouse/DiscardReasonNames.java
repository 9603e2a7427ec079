package io.vecflow.collector.sink.clickhouse;

import io.vecflow.sflow.DiscardReasons;
import java.nio.charset.StandardCharsets;

/** UTF-8 names of sFlow discard reason codes ({@link DiscardReasons}), encoded once so rows copy bytes only. */
final class DiscardReasonNames {
    private static final int CACHED = 1024;
    private static final byte[][] NAMES = new byte[CACHED][];

    static {
        for (int i = 0; i < CACHED; i++) {
            NAMES[i] = DiscardReasons.name(i).getBytes(StandardCharsets.UTF_8);
        }
    }

    private DiscardReasonNames() {}

    /** @return the reason's name as UTF-8 (cached for codes below 1024; encoded on each call above). */
    static byte[] utf8(long code) {
        return code >= 0 && code < CACHED ? NAMES[(int) code] : DiscardReasons.name(code)
                .getBytes(StandardCharsets.UTF_8);
    }
}
