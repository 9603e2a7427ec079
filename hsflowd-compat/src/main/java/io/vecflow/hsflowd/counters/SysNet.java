package io.vecflow.hsflowd.counters;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads an interface's speed and duplex from sysfs ({@code /sys/class/net/NAME/speed} in Mb/s, {@code duplex}
 * "full"/"half"; kernel Documentation/ABI/testing/sysfs-class-net). Virtual interfaces without a speed (the file
 * fails with EINVAL or reads -1) report 0 = unknown. Files are opened per read (one stream object each); nothing else
 * is allocated. Not thread-safe.
 */
public final class SysNet {
    private final ProcText text = new ProcText(64);
    private final int[] next = new int[1];

    /**
     * @param speedFile {@code /sys/class/net/NAME/speed}
     * @return ifSpeed in bit/s (Mb/s × 1,000,000), or 0 when unknown or unreadable
     */
    public long speedBps(Path speedFile) {
        try {
            text.read(speedFile);
        } catch (IOException e) {
            return 0;
        }
        byte[] b = text.buf;
        int p = ProcText.skipBlanks(b, 0, text.length);
        long mbps = ProcText.unsigned(b, p, text.length, next);
        return next[0] < 0 ? 0 : mbps * 1_000_000L; // "-1" (no digit first) → unknown
    }

    /**
     * @param duplexFile {@code /sys/class/net/NAME/duplex}
     * @return sFlow ifDirection: 1 full duplex, 2 half duplex, 0 unknown or unreadable
     */
    public int direction(Path duplexFile) {
        try {
            text.read(duplexFile);
        } catch (IOException e) {
            return 0;
        }
        if (ProcText.startsWith(text.buf, 0, text.length, "full")) {
            return 1;
        }
        return ProcText.startsWith(text.buf, 0, text.length, "half") ? 2 : 0;
    }
}
