package io.vecflow.hsflowd.counters;

import io.vecflow.hsflowd.config.HsflowdConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The 16 bytes of host_descr's uuid (0:2000), chosen as hsflowd 2.1 chooses them (sflow/host-sflow
 * {@code src/Linux/hsflowd.c}: {@code processCommandLine}, {@code readSystemUUID}, {@code chooseUUID};
 * {@code src/Linux/hsflowconfig.c}: the {@code uuid} setting), first match wins:
 * <ol>
 *   <li>the config's {@code uuid = ...} (hsflowd reads the config after the command line, so it overrides -u);</li>
 *   <li>{@code -u UUID} on the command line;</li>
 *   <li>the system's DMI UUID: hsflowd runs {@code /usr/sbin/dmidecode} (no arguments, as root, at start) and
 *       parses the first line whose first token (separators space, tab, {@code =}, {@code :}) is {@code UUID}; so
 *       it has none where dmidecode is not installed (its packages do not depend on it). vecflow does the same
 *       ({@link #fromDmidecode}); test roots read the kernel's {@code /sys/class/dmi/id/product_uuid} instead,
 *       which holds the same text on most machines (kernel {@code drivers/firmware/dmi_scan.c} and dmidecode both
 *       print the first three fields byte-swapped, i.e. in RFC 4122 order, when the SMBIOS version is 2.6 or later,
 *       and the raw bytes before; some VMware VMs are known to show different orders in the two). The bytes are the
 *       text's hex digits in text order. An all-zero or all-ones UUID counts as none (dmidecode prints "Not
 *       Present" / "Not Settable", which does not parse, and the kernel has no {@code product_uuid});</li>
 *   <li>one built from the machine id (hsflowd's {@code -m MACHINE_ID}; vecflow reads {@code /etc/machine-id},
 *       systemd's {@code %m}, when -m is not given): see {@link #fromMachineId}. Without any machine id hsflowd
 *       hashes 16 zero bytes; vecflow does the same.</li>
 * </ol>
 * Nothing is persisted: hsflowd writes no UUID back to {@code /etc/hsflowd.auto} for later runs, and every source
 * above is stable across restarts, so the same host gets the same bytes each start.
 */
public final class HostUuid {
    /** Where the UUID came from (for logs and {@code --check}). */
    public enum Source {
        /** the config's {@code uuid} setting. */
        CONFIG,
        /** {@code -u UUID}. */
        COMMAND_LINE,
        /** {@code /sys/class/dmi/id/product_uuid}. */
        DMI,
        /** built from the machine id. */
        MACHINE_ID
    }

    /**
     * A chosen UUID.
     *
     * @param bytes the 16 bytes as sent
     * @param source where they came from
     */
    public record Choice(byte[] bytes, Source source) {
        /** @return the bytes as lower-case 8-4-4-4-12 text, e.g. {@code 4c4c4544-0042-3510-8052-b4c04f4e4d31} */
        public String text() {
            return format(bytes);
        }
    }

    /** The program hsflowd reads the DMI UUID with ({@code HSP_DMIDECODE_CMD} in hsflowd.c). */
    public static final Path DMIDECODE = Path.of("/usr/sbin/dmidecode");

    private HostUuid() {
    }

    /**
     * Chooses the UUID in hsflowd's order.
     *
     * @param config the config's {@code uuid} (any text {@link #parse} accepts), or null
     * @param commandLine {@code -u} (any text {@link #parse} accepts), or null
     * @param sys the sysfs root (normally {@code /sys})
     * @param dmidecode hsflowd's {@code /usr/sbin/dmidecode}: run for the DMI UUID if executable (none if not);
     *        null to read {@code sys}'s {@code class/dmi/id/product_uuid} instead (test roots)
     * @param machineId the machine id as text ({@code -m}), or null to read {@code machineIdFile}
     * @param machineIdFile normally {@code /etc/machine-id}; unreadable or not 16 bytes of hex → 16 zero bytes
     * @return the choice
     * @throws IllegalArgumentException if {@code config}, {@code commandLine} or {@code machineId} is given but is not
     *         16 bytes of hex
     */
    public static Choice choose(String config, String commandLine, Path sys, Path dmidecode, String machineId,
            Path machineIdFile) {
        if (config != null) {
            return new Choice(require(config, "uuid"), Source.CONFIG);
        }
        if (commandLine != null) {
            return new Choice(require(commandLine, "-u"), Source.COMMAND_LINE);
        }
        byte[] dmi = dmidecode == null ? fromFile(sys.resolve("class/dmi/id/product_uuid")) : fromDmidecode(dmidecode);
        if (dmi != null && !allBytes(dmi, 0) && !allBytes(dmi, 0xFF)) {
            return new Choice(dmi, Source.DMI);
        }
        byte[] mid = machineId != null ? require(machineId, "-m") : fromFile(machineIdFile);
        return new Choice(fromMachineId(mid != null ? mid : new byte[16]), Source.MACHINE_ID);
    }

    /**
     * The host's UUID for a config: its {@code uuid}, {@code -u}, {@link #DMIDECODE}'s UUID, {@code -m} or
     * /etc/machine-id.
     *
     * @throws IllegalArgumentException if {@code -u} or {@code -m} is not a UUID
     */
    public static Choice forConfig(HsflowdConfig c) {
        return choose(c.uuid, c.commandLineUuid, Path.of("/sys"), DMIDECODE, c.commandLineMachineId,
                Path.of("/etc/machine-id"));
    }

    /**
     * Parses hex text into 16 bytes as hsflowd's {@code parseUUID} does (util.c {@code hexToBinary}): bytes are read
     * in text order, each from two hex digits (or one, before a separator or the end); {@code -}, {@code :} and
     * {@code .} between them are skipped; the first other character ends the text. Leading and trailing white space
     * is ignored (a file's newline).
     *
     * @param text e.g. {@code 564D4180-E560-251E-88F8-8285B49A7839} or a machine id {@code 3d1219c7c4c5...}
     * @return the 16 bytes, or null if fewer than 16 bytes were read
     */
    public static byte[] parse(String text) {
        String s = text.strip();
        byte[] out = new byte[16];
        int n = 0;
        int i = 0;
        while (i < s.length() && n < 16) {
            int hi = Character.digit(s.charAt(i), 16);
            char c = s.charAt(i);
            if (hi >= 0 && c < 128) {
                int v = hi;
                if (i + 1 < s.length() && s.charAt(i + 1) < 128 && Character.digit(s.charAt(i + 1), 16) >= 0) {
                    v = hi << 4 | Character.digit(s.charAt(i + 1), 16);
                    i++;
                }
                out[n++] = (byte) v;
            } else if (c != '-' && c != ':' && c != '.') {
                break;
            }
            i++;
        }
        return n == 16 ? out : null;
    }

    /**
     * Runs dmidecode as hsflowd's {@code readSystemUUID} does (no arguments; stderr discarded; at most 10 s and
     * 4 MiB of output read) and parses the first {@code UUID} line.
     *
     * @param dmidecode the program, normally {@link #DMIDECODE}
     * @return the 16 bytes, or null if the program is missing, fails, or prints no parsable UUID line
     */
    static byte[] fromDmidecode(Path dmidecode) {
        if (!Files.isExecutable(dmidecode)) {
            return null;
        }
        Process p = null;
        try {
            p = new ProcessBuilder(dmidecode.toString()).redirectErrorStream(false)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(
                            new java.io.File("/dev/null"))).start();
            byte[] out = p.getInputStream().readNBytes(4 << 20);
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                return null;
            }
            for (String line : new String(out, StandardCharsets.US_ASCII).split("\n", 200_000)) {
                String[] tok = line.strip().split("[ \t=:]+", 3);
                if (tok.length >= 2 && tok[0].equals("UUID")) {
                    byte[] u = parse(tok[1]);
                    if (u != null) {
                        return u;
                    }
                }
            }
            return null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            if (p != null) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * hsflowd's UUID for a host without one (chooseUUID, step 3): h1 = FNV-1a (32-bit) over machine-id bytes 0–7,
     * h2 over bytes 8–15, each byte sign-extended before the XOR as x86-64's signed {@code char} does (util.c
     * {@code hash_fnv1a}); the 16 bytes are h1, h2, h1, h2, each in the host's byte order (little-endian: hsflowd
     * writes them as native {@code uint32_t}); then byte 6 gets version 5 ({@code & 0x0F | 0x50}) and byte 8 the
     * RFC 4122 variant ({@code & 0x3F | 0x80}).
     *
     * @param machineId 16 bytes
     * @return a new 16-byte array
     */
    public static byte[] fromMachineId(byte[] machineId) {
        int h1 = fnv1aSignedChars(machineId, 0, 8);
        int h2 = fnv1aSignedChars(machineId, 8, 8);
        byte[] u = new byte[16];
        putLittleEndian(u, 0, h1);
        putLittleEndian(u, 4, h2);
        putLittleEndian(u, 8, h1);
        putLittleEndian(u, 12, h2);
        u[6] = (byte) (u[6] & 0x0F | 0x50);
        u[8] = (byte) (u[8] & 0x3F | 0x80);
        return u;
    }

    /** FNV-1a, 32-bit (offset basis 2166136261, prime 16777619), over {@code len} bytes read as signed chars. */
    static int fnv1aSignedChars(byte[] b, int off, int len) {
        int h = 0x811C9DC5;
        for (int i = off; i < off + len; i++) {
            h ^= b[i]; // a Java byte is signed: sign-extended to int like a C char on x86-64
            h *= 16777619;
        }
        return h;
    }

    /** @return the 16 bytes as lower-case 8-4-4-4-12 text */
    public static String format(byte[] u) {
        StringBuilder b = new StringBuilder(36);
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                b.append('-');
            }
            b.append(Character.forDigit(u[i] >> 4 & 0xF, 16)).append(Character.forDigit(u[i] & 0xF, 16));
        }
        return b.toString();
    }

    private static byte[] require(String text, String what) {
        byte[] u = parse(text);
        if (u == null) {
            throw new IllegalArgumentException(what + ": '" + text + "' is not a UUID (16 bytes of hex, e.g. "
                    + "3e8f5a60-0b3c-4d2e-9f11-5a6b7c8d9e0f)");
        }
        return u;
    }

    /** @return the first line of a small file parsed by {@link #parse}, or null if unreadable or not a UUID */
    static byte[] fromFile(Path file) {
        byte[] raw;
        try {
            if (Files.size(file) > 4096) {
                return null; // a UUID file is one short line
            }
            raw = Files.readAllBytes(file);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return parse(new String(raw, StandardCharsets.US_ASCII));
    }

    private static boolean allBytes(byte[] u, int v) {
        for (byte x : u) {
            if ((x & 0xFF) != v) {
                return false;
            }
        }
        return true;
    }

    private static void putLittleEndian(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }
}
