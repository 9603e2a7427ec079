package io.vecflow.common;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Drops root after a daemon has opened what needs it. The agent starts as root only because joining the PSAMPLE
 * "packets" group and NETLINK_USERSOCK groups needs CAP_NET_ADMIN and NET_DM "events" needs CAP_SYS_ADMIN
 * (docs/netlink.md §1 "Join every group before dropping privileges", §6 rule 9); sockets already open and bound
 * keep receiving after the drop, so it keeps no capability. The dataplane opens its AF_PACKET ports (CAP_NET_RAW,
 * CAP_SYS_ADMIN for setns) and then keeps, on its main thread alone, CAP_NET_ADMIN when it sends PSAMPLE/NET_DM on
 * generic netlink (the kernel checks it at every send to a multicast group): {@link #dropTo(String, long)}.
 *
 * <p>Sequence (glibc, Linux x86_64, through {@code java.lang.foreign} only):
 * {@code getpwnam(user)} → {@code setgroups(0, NULL)} (supplementary groups
 * cleared) → {@code setgid(pw_gid)} → {@code setuid(pw_uid)}. glibc applies the set*id calls to every thread of the
 * process (its "setxid" broadcast), which matters in a JVM. Changing all of the real, effective and saved uids from
 * 0 to non-zero clears the permitted, effective and ambient capability sets (capabilities(7), "Effect of user ID
 * changes on capabilities"). The result is then verified: {@code getresuid}/{@code getresgid} equal the target,
 * {@code setuid(0)} fails, and every thread's {@code /proc/self/task/TID/status} shows the target Uid/Gid and
 * {@code CapEff}/{@code CapPrm}/{@code CapAmb} of 0.
 *
 * <p>Not root (effective uid ≠ 0): nothing to drop, {@link #dropTo} returns a result with {@code dropped=false}.
 * Target user {@code root} (uid 0): the caller asked to keep root; nothing is changed.
 */
@SuppressWarnings("restricted")
public final class PrivilegeDrop {
    private PrivilegeDrop() {}

    /** Default user the agent drops to ({@code vecflow hsflowd --user}). */
    public static final String DEFAULT_USER = "nobody";

    /** Upper bound on threads checked after the drop (a JVM agent has a few dozen). */
    private static final int MAX_TASKS = 4096;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    private static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;

    // struct passwd (glibc x86_64, <pwd.h>): char *pw_name @0; char *pw_passwd @8; uid_t pw_uid @16;
    // gid_t pw_gid @20; char *pw_gecos @24; char *pw_dir @32; char *pw_shell @40 (48 bytes)
    private static final long PASSWD_SIZE = 48;
    private static final long PW_UID = 16;
    private static final long PW_GID = 20;

    private static final MethodHandle GETPWNAM = handle("getpwnam", FunctionDescriptor.of(PTR, PTR));
    private static final MethodHandle GETEUID = handle("geteuid", FunctionDescriptor.of(C_INT));
    private static final MethodHandle SETGROUPS = handle("setgroups", FunctionDescriptor.of(C_INT, C_LONG, PTR));
    private static final MethodHandle SETGID = handle("setgid", FunctionDescriptor.of(C_INT, C_INT));
    private static final MethodHandle SETUID = handle("setuid", FunctionDescriptor.of(C_INT, C_INT));
    private static final MethodHandle GETRESUID = handle("getresuid", FunctionDescriptor.of(C_INT, PTR, PTR, PTR));
    private static final MethodHandle GETRESGID = handle("getresgid", FunctionDescriptor.of(C_INT, PTR, PTR, PTR));
    private static final MethodHandle PRCTL = handle("prctl", FunctionDescriptor.of(C_INT, C_INT, C_LONG, C_LONG,
            C_LONG, C_LONG));
    private static final MethodHandle CAPSET = handle("capset", FunctionDescriptor.of(C_INT, PTR, PTR));
    private static final MethodHandle GETTID = handle("gettid", FunctionDescriptor.of(C_INT));

    /** {@code CAP_NET_ADMIN} (linux/capability.h): e.g. sending to a generic netlink multicast group. */
    public static final int CAP_NET_ADMIN = 12;
    /** {@code CAP_NET_RAW} (linux/capability.h): opening AF_PACKET sockets. */
    public static final int CAP_NET_RAW = 13;
    private static final int PR_SET_KEEPCAPS = 8;
    private static final int PR_SET_NO_NEW_PRIVS = 38;
    private static final int LINUX_CAPABILITY_VERSION_3 = 0x20080522;

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: "
                + name));
        return LINKER.downcallHandle(sym, fd, CAPTURE);
    }

    /**
     * What {@link #dropTo} did.
     *
     * @param user    the user asked for
     * @param uid     the process's uid afterwards
     * @param gid     the process's gid afterwards
     * @param dropped {@code true} if root was given up
     * @param note    one line for the log, e.g. {@code "running as nobody (uid 65534, gid 65534), no capabilities"}
     */
    public record Result(String user, int uid, int gid, boolean dropped, String note) {}

    /** A privilege drop that could not be done or could not be verified; the message names the call and errno. */
    public static final class PrivilegeDropException extends Exception {
        private static final long serialVersionUID = 1L;

        /** @param message what failed (call, errno, what to do) */
        public PrivilegeDropException(String message) {
            super(message);
        }
    }

    /** @return the effective uid of the process ({@code geteuid(2)}). */
    public static int effectiveUid() {
        try (Arena a = Arena.ofConfined()) {
            return (int) GETEUID.invokeExact(a.allocate(CALL_STATE));
        } catch (Throwable t) {
            throw new IllegalStateException("geteuid failed", t);
        }
    }

    /**
     * Checks, without changing anything, that {@code user} exists in the passwd database, so a bad {@code --user}
     * fails before the agent opens anything (and in {@code --check}).
     *
     * @throws PrivilegeDropException naming the user when {@code getpwnam} finds no entry
     */
    public static void checkUser(String user) throws PrivilegeDropException {
        if (user == null || user.isBlank()) {
            throw new PrivilegeDropException("--user: empty user name");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            MemorySegment pw = (MemorySegment) GETPWNAM.invokeExact(st, a.allocateFrom(user, StandardCharsets.UTF_8));
            if (pw.equals(MemorySegment.NULL)) {
                throw new PrivilegeDropException("--user " + user + ": no such user in the passwd database; create it "
                        + "or pick another, e.g. --user " + DEFAULT_USER);
            }
        } catch (PrivilegeDropException e) {
            throw e;
        } catch (Throwable t) {
            throw new PrivilegeDropException("getpwnam(" + user + ") failed: " + t);
        }
    }

    /**
     * Gives up root for {@code user}. Call it after every netlink socket is open and bound to its groups.
     *
     * @param user a user name from the passwd database ({@code getpwnam}); {@code "root"} keeps root
     * @return what was done
     * @throws PrivilegeDropException if the user does not exist, a call fails, or the verification finds any uid,
     *         gid or capability left over (the process must then exit: it is in an unknown state)
     */
    public static Result dropTo(String user) throws PrivilegeDropException {
        return dropTo(user, 0);
    }

    /**
     * Gives up root for {@code user}, the calling thread keeping the capabilities of {@code keep} and every other
     * thread none: the calling thread sets {@code PR_SET_KEEPCAPS} on itself before the set*id broadcast (the flag is
     * per thread), so it alone retains its permitted set, which {@code capset(2)} then narrows to {@code keep}
     * (permitted and effective; inheritable and ambient empty). Threads the caller starts afterwards inherit
     * {@code keep}; each that needs none calls {@link #dropThreadCapabilities()} first.
     *
     * @param user as {@link #dropTo(String)}
     * @param keep a mask of capability bits ({@code 1L << CAP_NET_ADMIN}); 0 keeps none
     * @return what was done
     * @throws PrivilegeDropException as {@link #dropTo(String)}; also when the calling thread holds other than
     *     {@code keep} afterwards
     */
    public static Result dropTo(String user, long keep) throws PrivilegeDropException {
        if (user == null || user.isBlank()) {
            throw new PrivilegeDropException("--user: empty user name");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int euid = (int) GETEUID.invokeExact(st);
            if (euid != 0) {
                return new Result(user, euid, -1, false, "not started as root (euid " + euid
                        + "): no privilege to drop");
            }
            MemorySegment pw = (MemorySegment) GETPWNAM.invokeExact(st, a.allocateFrom(user, StandardCharsets.UTF_8));
            if (pw.equals(MemorySegment.NULL)) {
                int e = errno(st);
                throw new PrivilegeDropException("--user " + user + ": no such user in the passwd database (getpwnam"
                        + (e != 0 ? ", errno " + e : "") + "); create it or pick another, e.g. --user "
                        + DEFAULT_USER);
            }
            pw = pw.reinterpret(PASSWD_SIZE);
            int uid = pw.get(C_INT, PW_UID);
            int gid = pw.get(C_INT, PW_GID);
            if (uid == 0) {
                return new Result(user, 0, gid, false, "--user " + user + " has uid 0: keeping root (not recommended)");
            }
            if (keep != 0) {
                check((int) PRCTL.invokeExact(st, PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L), st, "prctl(PR_SET_KEEPCAPS, 1)");
            }
            check((int) SETGROUPS.invokeExact(st, 0L, MemorySegment.NULL), st, "setgroups(0, NULL)");
            check((int) SETGID.invokeExact(st, gid), st, "setgid(" + Integer.toUnsignedString(gid) + ")");
            check((int) SETUID.invokeExact(st, uid), st, "setuid(" + Integer.toUnsignedString(uid) + ")");
            int self = 0;
            if (keep != 0) {
                capset(a, st, keep);
                check((int) PRCTL.invokeExact(st, PR_SET_KEEPCAPS, 0L, 0L, 0L, 0L), st, "prctl(PR_SET_KEEPCAPS, 0)");
                self = (int) GETTID.invokeExact(st);
            }
            int me = self;
            verify(a, st, user, uid, gid, (tid, comm) -> tid.equals(Integer.toString(me)) ? keep : 0);
            return new Result(user, uid, gid, true, "running as " + user + " (uid " + Integer.toUnsignedString(uid)
                    + ", gid " + Integer.toUnsignedString(gid) + "), no supplementary groups, "
                    + (keep == 0 ? "no capabilities" : capabilityNames(keep) + " on the calling thread only"));
        } catch (PrivilegeDropException e) {
            throw e;
        } catch (Throwable t) {
            throw new PrivilegeDropException("privilege drop failed: " + t);
        }
    }

    /**
     * Clears every capability of the calling thread (permitted, effective, inheritable; {@code capset(2)} with
     * version 3). Threads are separate in this: the others keep theirs.
     *
     * @throws PrivilegeDropException when capset fails, with errno
     */
    public static void dropThreadCapabilities() throws PrivilegeDropException {
        try (Arena a = Arena.ofConfined()) {
            capset(a, a.allocate(CALL_STATE), 0);
        } catch (PrivilegeDropException e) {
            throw e;
        } catch (Throwable t) {
            throw new PrivilegeDropException("capset failed: " + t);
        }
    }

    /**
     * Sets {@code no_new_privs} ({@code prctl(PR_SET_NO_NEW_PRIVS, 1)}, per thread and inherited): no later
     * {@code execve} can gain privileges through set-user-ID files or file capabilities. The packaged units set it for
     * the whole process ({@code NoNewPrivileges=yes}); this covers a start by hand.
     *
     * @throws PrivilegeDropException when prctl fails
     */
    public static void noNewPrivileges() throws PrivilegeDropException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            check((int) PRCTL.invokeExact(st, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L), st, "prctl(PR_SET_NO_NEW_PRIVS)");
        } catch (PrivilegeDropException e) {
            throw e;
        } catch (Throwable t) {
            throw new PrivilegeDropException("prctl failed: " + t);
        }
    }

    /** capset(2) on the calling thread: permitted = effective = {@code mask}, inheritable empty. */
    private static void capset(Arena a, MemorySegment st, long mask) throws Throwable {
        MemorySegment header = a.allocate(C_INT, 2); // struct __user_cap_header_struct {version, pid}
        header.setAtIndex(C_INT, 0, LINUX_CAPABILITY_VERSION_3);
        header.setAtIndex(C_INT, 1, 0);
        MemorySegment data = a.allocate(C_INT, 6); // struct __user_cap_data_struct[2] {effective, permitted, inh.}
        for (int i = 0; i < 2; i++) {
            int word = (int) (mask >>> (32 * i));
            data.setAtIndex(C_INT, 3L * i, word);
            data.setAtIndex(C_INT, 3L * i + 1, word);
            data.setAtIndex(C_INT, 3L * i + 2, 0);
        }
        check((int) CAPSET.invokeExact(st, header, data), st, "capset(" + capabilityNames(mask) + ")");
    }

    /** @return e.g. {@code "CAP_NET_ADMIN"} for the bits vecflow names, {@code cap N} for the others */
    public static String capabilityNames(long mask) {
        List<String> names = new ArrayList<>();
        for (int b = 0; b < 64; b++) {
            if ((mask & (1L << b)) != 0) {
                names.add(b == CAP_NET_ADMIN ? "CAP_NET_ADMIN" : b == CAP_NET_RAW ? "CAP_NET_RAW" : "cap " + b);
            }
        }
        return names.isEmpty() ? "none" : String.join(" ", names);
    }

    /** What each thread may hold after a drop: a capability mask for a thread id and its name ({@code comm}). */
    @FunctionalInterface
    public interface ExpectedCapabilities {
        /**
         * @param tid the thread id (a /proc/self/task entry)
         * @param comm the thread's name as the kernel holds it (at most 15 bytes)
         * @return the mask its CapEff and CapPrm must equal
         */
        long of(String tid, String comm);
    }

    private static void verify(Arena a, MemorySegment st, String user, int uid, int gid, ExpectedCapabilities caps)
            throws Throwable {
        MemorySegment r = a.allocate(C_INT, 3);
        check((int) GETRESUID.invokeExact(st, r, r.asSlice(4), r.asSlice(8)), st, "getresuid");
        int[] u = {r.getAtIndex(C_INT, 0), r.getAtIndex(C_INT, 1), r.getAtIndex(C_INT, 2)};
        check((int) GETRESGID.invokeExact(st, r, r.asSlice(4), r.asSlice(8)), st, "getresgid");
        int[] g = {r.getAtIndex(C_INT, 0), r.getAtIndex(C_INT, 1), r.getAtIndex(C_INT, 2)};
        for (int i = 0; i < 3; i++) {
            if (u[i] != uid || g[i] != gid) {
                throw new PrivilegeDropException("after setuid/setgid to " + user + ": real/effective/saved uid "
                        + u[0] + "/" + u[1] + "/" + u[2] + ", gid " + g[0] + "/" + g[1] + "/" + g[2]
                        + " (expected " + uid + ", " + gid + ")");
            }
        }
        if ((int) SETUID.invokeExact(st, 0) == 0) {
            throw new PrivilegeDropException("after dropping to " + user
                    + ", setuid(0) succeeded: root can be regained");
        }
        List<String> problems = threadProblems(uid, gid, caps);
        if (!problems.isEmpty()) {
            throw new PrivilegeDropException("after dropping to " + user + ": " + String.join("; ", problems));
        }
    }

    /**
     * Checks every thread of this process: Uid/Gid lines all equal to {@code uid}/{@code gid}, CapEff, CapPrm and
     * CapAmb zero ({@code /proc/self/task/TID/status}, proc(5)).
     *
     * @return one line per problem found; empty if every thread is as expected
     * @throws IOException if /proc cannot be read
     */
    static List<String> threadProblems(int uid, int gid) throws IOException {
        return threadProblems(uid, gid, (tid, comm) -> 0);
    }

    /**
     * Checks every thread of this process: Uid/Gid lines all equal to {@code uid}/{@code gid}, CapAmb zero, and
     * CapEff and CapPrm equal to what {@code caps} gives for that thread ({@code /proc/self/task/TID/status} and
     * {@code comm}, proc(5)).
     *
     * @return one line per problem found, naming the thread (id and name) and the line; empty if all are as expected
     * @throws IOException if /proc cannot be read
     */
    public static List<String> threadProblems(int uid, int gid, ExpectedCapabilities caps) throws IOException {
        List<String> problems = new ArrayList<>();
        int n = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                if (++n > MAX_TASKS) {
                    break;
                }
                List<String> lines;
                String comm;
                try {
                    lines = Files.readAllLines(t.resolve("status"), StandardCharsets.UTF_8);
                    comm = Files.readString(t.resolve("comm"), StandardCharsets.UTF_8).strip();
                } catch (java.nio.file.NoSuchFileException gone) {
                    continue; // the thread ended meanwhile
                }
                String tid = t.getFileName().toString();
                long wantCaps = caps.of(tid, comm);
                for (String l : lines) {
                    String[] f = l.split("\\s+");
                    switch (f[0]) {
                        case "Uid:", "Gid:" -> {
                            int want = f[0].equals("Uid:") ? uid : gid;
                            for (int i = 1; i < f.length; i++) {
                                if (Integer.parseUnsignedInt(f[i]) != want) {
                                    problems.add("thread " + tid + ": " + l.strip());
                                    break;
                                }
                            }
                        }
                        case "CapEff:", "CapPrm:", "CapAmb:" -> {
                            long expected = f[0].equals("CapAmb:") ? 0 : wantCaps;
                            if (f.length < 2 || Long.parseUnsignedLong(f[1], 16) != expected) {
                                problems.add("thread " + tid + (tid.equals(comm) ? "" : " (" + comm + ")") + ": "
                                        + l.strip() + (expected == 0 ? "" : " (expected "
                                        + Long.toHexString(expected) + ")"));
                            }
                        }
                        default -> { }
                    }
                }
            }
        }
        return problems;
    }

    private static void check(int rc, MemorySegment st, String call) throws PrivilegeDropException {
        if (rc != 0) {
            int e = errno(st);
            throw new PrivilegeDropException(call + " failed: errno " + e + (e == 1 ? " (EPERM: not root, or "
                    + "CAP_SETUID/CAP_SETGID missing from the capability bounding set)" : ""));
        }
    }

    private static int errno(MemorySegment st) {
        return (int) ERRNO.get(st, 0L);
    }
}
