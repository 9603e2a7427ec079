package io.vecflow.dataplane.control;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Client side of the control socket ({@code ./vecflow ctl COMMAND...}): connects, sends one command line, reads the
 * reply until the server closes, and decodes it ({@link ControlProtocol}). Blocking; any thread.
 */
public final class ControlClient {
    private ControlClient() {}

    /** Default time to wait for the whole reply. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Sends one command.
     *
     * @param socket  the control socket path
     * @param command one command line (no newline)
     * @param timeout time allowed for connect + reply
     * @return the exit status and the reply text
     * @throws IOException no socket file, nobody listening (stale file), no reply in time, a reply without a status
     *                     line or larger than {@value ControlProtocol#MAX_REPLY_BYTES} bytes; the message names the
     * path
     * @throws IllegalArgumentException a command with a newline in it, or longer than
     *                                  {@value ControlProtocol#MAX_REQUEST_BYTES} bytes
     */
    public static ControlProtocol.Reply send(Path socket, String command, Duration timeout) throws IOException {
        byte[] req = command.getBytes(StandardCharsets.UTF_8);
        if (command.indexOf('\n') >= 0 || command.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("a control command is one line; it contains a line break");
        }
        if (req.length > ControlProtocol.MAX_REQUEST_BYTES) {
            throw new IllegalArgumentException("command of " + req.length + " bytes is longer than "
                    + ControlProtocol.MAX_REQUEST_BYTES);
        }
        if (!Files.exists(socket)) {
            throw new IOException("no control socket at " + socket + " (is `vecflow dataplane` running? its "
                    + "config's control-socket names the path)");
        }
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread timer = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(timeout);
                timedOut.set(true);
                ch.close();
            } catch (InterruptedException | IOException e) {
                // done in time
            }
        });
        try (ch) {
            try {
                ch.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                throw new IOException("cannot connect to the control socket " + socket + ": " + e.getMessage()
                        + " (a stale socket file: is the dataplane running?)", e);
            }
            ByteBuffer out = ByteBuffer.allocate(req.length + 1).put(req).put((byte) '\n').flip();
            while (out.hasRemaining()) {
                ch.write(out);
            }
            ch.shutdownOutput();
            ByteArrayOutputStream reply = new ByteArrayOutputStream(256);
            ByteBuffer in = ByteBuffer.allocate(8192);
            while (true) {
                in.clear();
                int n = ch.read(in);
                if (n < 0) {
                    break;
                }
                if (reply.size() + n > ControlProtocol.MAX_REPLY_BYTES) {
                    throw new IOException("reply from " + socket + " exceeds " + ControlProtocol.MAX_REPLY_BYTES
                            + " bytes");
                }
                reply.write(in.array(), 0, n);
            }
            return ControlProtocol.decodeReply(reply.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            if (timedOut.get()) {
                throw new IOException("no complete reply from the control socket " + socket + " within "
                        + timeout.toMillis() + " ms", e);
            }
            throw e;
        } finally {
            timer.interrupt();
        }
    }
}
