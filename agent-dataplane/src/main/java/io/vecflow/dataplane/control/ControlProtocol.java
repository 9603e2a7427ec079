package io.vecflow.dataplane.control;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The control socket's framing (vecflow's own; a Unix-domain stream socket, one command per connection):
 * <ol>
 *   <li>The client sends one command line in UTF-8, ended by {@code \n} (or by closing its write side), at most
 *       {@value #MAX_REQUEST_BYTES} bytes.</li>
 *   <li>The server answers with zero or more text lines, each ended by {@code \n}; a line that starts with {@code %}
 *       is sent with one more {@code %} in front, so that it cannot be taken for the status line.</li>
 *   <li>The last line is {@code %rc N}: the exit status ({@link #RC_OK} 0, {@link #RC_FAILED} 1 the dataplane could
 *       not do it, {@link #RC_USAGE} 2 the command does not parse, {@link #RC_INTERNAL} 3 an unexpected error, see
 *       the dataplane's log). Then the server closes the connection.</li>
 * </ol>
 * A reply without the status line (the server died or timed out) is an error for the client.
 */
public final class ControlProtocol {
    private ControlProtocol() {}

    /** Success. */
    public static final int RC_OK = 0;
    /** The dataplane could not carry out a valid command ({@link ControlException}). */
    public static final int RC_FAILED = 1;
    /** Syntax or range error in the command ({@link CommandSyntaxException}). */
    public static final int RC_USAGE = 2;
    /** An unexpected error inside the dataplane while running the command. */
    public static final int RC_INTERNAL = 3;
    /** Longest request line accepted, bytes (without the newline). */
    public static final int MAX_REQUEST_BYTES = 4096;
    /** Longest reply a client accepts, bytes (a cap on what is read from the socket). */
    public static final int MAX_REPLY_BYTES = 16 << 20;
    /** Prefix of the status line. */
    public static final String STATUS_PREFIX = "%rc ";

    /**
     * Frames a reply: escapes lines starting with {@code %}, ends every line with {@code \n}, appends the status line.
     *
     * @param text reply text (may be empty; a trailing newline is not doubled)
     * @param rc   exit status
     */
    public static byte[] encodeReply(String text, int rc) {
        StringBuilder b = new StringBuilder(text.length() + 16);
        if (!text.isEmpty()) {
            String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
            for (String line : body.split("\n", -1)) {
                if (line.startsWith("%")) {
                    b.append('%');
                }
                b.append(line).append('\n');
            }
        }
        b.append(STATUS_PREFIX).append(rc).append('\n');
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A decoded reply. @param rc exit status  @param text the reply lines, unescaped, each ended by {@code \n} */
    public record Reply(int rc, String text) {}

    /**
     * Decodes a whole reply.
     *
     * @throws IOException no status line, or a malformed one (the message quotes it)
     */
    public static Reply decodeReply(String raw) throws IOException {
        StringBuilder text = new StringBuilder(raw.length());
        String[] lines = raw.split("\n", -1);
        int n = raw.endsWith("\n") ? lines.length - 1 : lines.length;
        for (int i = 0; i < n; i++) {
            String l = lines[i];
            if (l.startsWith(STATUS_PREFIX) && i == n - 1 && raw.endsWith("\n")) {
                try {
                    return new Reply(Integer.parseInt(l.substring(STATUS_PREFIX.length())), text.toString());
                } catch (NumberFormatException e) {
                    throw new IOException("malformed status line \"" + l + "\" from the control socket");
                }
            }
            if (l.startsWith("%%")) {
                l = l.substring(1);
            } else if (l.startsWith("%")) {
                throw new IOException("unexpected line \"" + l + "\" (line " + (i + 1) + ") from the control socket");
            }
            text.append(l).append('\n');
        }
        throw new IOException("the control socket closed without a status line (the dataplane stopped or timed out)"
                + (text.isEmpty() ? "" : "; partial reply:\n" + text));
    }

    /**
     * Reads one request line: bytes up to {@code \n} or end of stream, at most {@link #MAX_REQUEST_BYTES}.
     *
     * @return the line without its newline (a trailing {@code \r} is dropped too)
     * @throws IOException a read error, or a line longer than the cap (message gives the cap)
     */
    public static String readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(128);
        for (int i = 0; i <= MAX_REQUEST_BYTES; i++) {
            int c = in.read();
            if (c < 0 || c == '\n') {
                String s = b.toString(StandardCharsets.UTF_8);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        throw new IOException("command longer than " + MAX_REQUEST_BYTES + " bytes");
    }
}
