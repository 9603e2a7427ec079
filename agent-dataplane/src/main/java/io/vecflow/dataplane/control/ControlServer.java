package io.vecflow.dataplane.control;

import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The dataplane's control socket: a Unix-domain stream socket (JDK {@link UnixDomainSocketAddress}) that takes one
 * command per connection ({@link ControlProtocol} framing), parses it ({@link CommandParser}) and makes the one
 * {@link DataplaneControl} call it names. Off the packet path: one platform daemon thread accepts, each connection is
 * served on a virtual thread, and commands run one at a time (a lock), so the implementation never sees two calls at
 * once.
 *
 * <p>Limits: at most {@value #MAX_CONNECTIONS} connections in progress (more are answered "busy", status 1); a client
 * has {@link #REQUEST_TIMEOUT} (by default) to send its line, then the connection is closed; a request line is at most
 * {@value ControlProtocol#MAX_REQUEST_BYTES} bytes. The socket file is created with mode 0660 (owner and group, e.g.
 * an operators' group); a stale file from a dead dataplane is replaced, a live one is an error.
 */
public final class ControlServer implements AutoCloseable {
    /** Default socket path. */
    public static final Path DEFAULT_SOCKET = Path.of("/run/vecflow/dataplane.sock");
    /** Time a client has to send its command line. */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    /** Bytes read and dropped after an over-long request line before the error reply. */
    private static final long MAX_DRAIN_BYTES = 1 << 20;
    /** Connections served at once. */
    public static final int MAX_CONNECTIONS = 8;

    private final Path path;
    private final Duration requestTimeout;
    private final ServerSocketChannel server;
    private final DataplaneControl control;
    private final Thread acceptor;
    private final ScheduledExecutorService watchdog;
    private final Semaphore slots = new Semaphore(MAX_CONNECTIONS);
    private final ReentrantLock commandLock = new ReentrantLock();
    private volatile boolean closed;
    private volatile long ok, failed, usage, internal, busy, timedOut;
    private volatile String lastInternalError;

    private ControlServer(Path path, ServerSocketChannel server, DataplaneControl control, Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
        this.path = path;
        this.server = server;
        this.control = control;
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "vecflow-control-watchdog");
            t.setDaemon(true);
            return t;
        });
        this.acceptor = Thread.ofPlatform().daemon().name("vecflow-control").unstarted(this::acceptLoop);
    }

    /**
     * Binds the socket and starts serving.
     *
     * @param socket  socket path (parent directories are created)
     * @param control the dataplane
     * @return the running server
     * @throws IOException the path is in use by a live server (the message says so), or cannot be created / bound
     */
    public static ControlServer start(Path socket, DataplaneControl control) throws IOException {
        return start(socket, control, REQUEST_TIMEOUT);
    }

    /**
     * As {@link #start(Path, DataplaneControl)} with another request timeout.
     *
     * @param requestTimeout time a client has to send its command line (positive)
     */
    public static ControlServer start(Path socket, DataplaneControl control, Duration requestTimeout)
            throws IOException {
        return start(socket, control, requestTimeout, null);
    }

    /**
     * As {@link #start(Path, DataplaneControl, Duration)}, the socket file owned by a group of its own.
     *
     * @param group the group that owns the socket file (mode 0660: its members may connect), or null for the
     *     process's group
     * @throws IOException as above, or when the group does not exist or the process may not give the file to it
     *     (the message names the group and the socket)
     */
    public static ControlServer start(Path socket, DataplaneControl control, Duration requestTimeout, String group)
            throws IOException {
        Objects.requireNonNull(control, "control");
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request timeout must be positive, got " + requestTimeout);
        }
        Path abs = socket.toAbsolutePath();
        if (abs.getParent() != null) {
            Files.createDirectories(abs.getParent());
        }
        if (Files.exists(abs)) {
            if (Files.isDirectory(abs)) {
                throw new IOException("control socket path " + abs + " is a directory");
            }
            boolean live;
            try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(abs))) {
                live = true;
            } catch (IOException refused) {
                live = false; // stale: nobody listens
            }
            if (live) {
                throw new IOException("control socket " + abs + " is in use by a running process (another "
                        + "dataplane?); stop it or configure another control socket path");
            }
            Files.delete(abs);
        }
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            s.bind(UnixDomainSocketAddress.of(abs), MAX_CONNECTIONS);
            Files.setPosixFilePermissions(abs, PosixFilePermissions.fromString("rw-rw----"));
            if (group != null) {
                try {
                    GroupPrincipal g = abs.getFileSystem().getUserPrincipalLookupService()
                            .lookupPrincipalByGroupName(group);
                    Files.getFileAttributeView(abs, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                            .setGroup(g);
                } catch (UserPrincipalNotFoundException e) {
                    throw new IOException("control-socket-group " + group + ": no such group (groupadd it, or "
                            + "leave control-socket-group empty)", e);
                } catch (IOException e) {
                    throw new IOException("control-socket-group " + group + ": cannot give " + abs
                            + " to it: " + e.getMessage(), e);
                }
            }
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
        ControlServer cs = new ControlServer(abs, s, control, requestTimeout);
        cs.acceptor.start();
        return cs;
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                lastInternalError = "accept: " + e;
                if (closed) {
                    return;
                }
                sleepQuietly(10); // e.g. EMFILE: do not spin
                continue;
            }
            if (!slots.tryAcquire()) {
                busy++;
                Thread.ofVirtual().start(() -> reply(ch, "busy: " + MAX_CONNECTIONS
                        + " control commands are in progress; try again", ControlProtocol.RC_FAILED));
                continue;
            }
            Thread.ofVirtual().name("vecflow-control-conn").start(() -> {
                try {
                    serve(ch);
                } finally {
                    slots.release();
                }
            });
        }
    }

    private void serve(SocketChannel ch) {
        ScheduledFuture<?> timer = watchdog.schedule(() -> {
            timedOut++;
            closeQuietly(ch);
        }, requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        String line;
        InputStream in = Channels.newInputStream(ch);
        try {
            line = ControlProtocol.readRequest(in);
        } catch (IOException e) {
            if (ch.isOpen()) {
                usage++;
                // read what the client is still sending (bounded, and the watchdog still runs): closing with unread
                // input would reset the connection before the client reads the reply
                drain(in);
                reply(ch, "error: " + e.getMessage(), ControlProtocol.RC_USAGE);
            }
            timer.cancel(false);
            return;
        }
        timer.cancel(false);
        String text;
        int rc;
        try {
            CommandParser.Command cmd = CommandParser.parse(line);
            commandLock.lock();
            try {
                text = cmd.run(control);
            } finally {
                commandLock.unlock();
            }
            rc = ControlProtocol.RC_OK;
            ok++;
        } catch (CommandSyntaxException e) {
            text = "error: " + e.getMessage();
            rc = ControlProtocol.RC_USAGE;
            usage++;
        } catch (ControlException e) {
            text = "error: " + e.getMessage();
            rc = ControlProtocol.RC_FAILED;
            failed++;
        } catch (RuntimeException e) {
            text = "internal error: " + e;
            lastInternalError = line + ": " + e;
            rc = ControlProtocol.RC_INTERNAL;
            internal++;
        }
        reply(ch, text == null ? "" : text, rc);
    }

    private static void drain(InputStream in) {
        byte[] sink = new byte[8192];
        try {
            for (long total = 0; total < MAX_DRAIN_BYTES; ) {
                int n = in.read(sink);
                if (n < 0) {
                    return;
                }
                total += n;
            }
        } catch (IOException e) {
            // closed by the watchdog or the client
        }
    }

    private static void reply(SocketChannel ch, String text, int rc) {
        try (ch) {
            ByteBuffer b = ByteBuffer.wrap(ControlProtocol.encodeReply(text, rc));
            for (int i = 0; b.hasRemaining() && i < 1_000_000; i++) {
                ch.write(b);
            }
        } catch (IOException e) {
            // the client went away: nothing to tell it
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // already closed
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The socket path (absolute). */
    public Path path() {
        return path;
    }

    /** Commands that ran (status 0). */
    public long commandsOk() {
        return ok;
    }

    /** Valid commands the dataplane refused (status 1). */
    public long commandsFailed() {
        return failed;
    }

    /** Lines that did not parse or were too long (status 2). */
    public long usageErrors() {
        return usage;
    }

    /** Commands that threw an unexpected exception (status 3). */
    public long internalErrors() {
        return internal;
    }

    /** Connections turned away because {@value #MAX_CONNECTIONS} were in progress. */
    public long busyRejections() {
        return busy;
    }

    /** Connections closed because no command line arrived within the request timeout. */
    public long requestTimeouts() {
        return timedOut;
    }

    /** The last unexpected error (command and exception), or {@code null}. */
    public String lastInternalError() {
        return lastInternalError;
    }

    /**
     * Stops accepting, removes the socket file (unless the process, dropped to another user, may no longer) and waits
     * (≤ 2 s) for the acceptor; idempotent.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        server.close();
        watchdog.shutdownNow();
        try {
            acceptor.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Files.deleteIfExists(path);
        } catch (java.nio.file.AccessDeniedException e) {
            // dropped to --user after creating it in a root-owned directory: the service manager removes it
            // (RuntimeDirectory=); a later start replaces a stale socket file
        }
    }
}
