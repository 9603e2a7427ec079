package io.vecflow.dataplane.netns;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.common.NetNamespace;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Servers that say who they are, for load-balancing tests in a {@link NetnsLab}: server {@code k} serves the page
 * {@code /id.txt} = {@code "server-k\n"} (python3 http.server, HTTP/1.0), and a client learns which server a
 * connection reached from the page. A request can be held half-sent ({@link #begin}) across a change in the load
 * balancer and finished later ({@link #finish}) to prove the connection stayed on its server.
 */
public final class IdPages {
    private IdPages() {}

    /** Bound on each client connect: 5 s. */
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    /** Bound on each client read (SO_TIMEOUT): 10 s. */
    private static final int READ_TIMEOUT_MS = 10_000;
    /** Cap on the response read: 64 KiB (the page is a few hundred bytes with its headers). */
    private static final int MAX_RESPONSE = 64 * 1024;
    private static final byte[] REQUEST_START = "GET /id.txt HTTP/1.0\r\nHost: vip\r\n".getBytes(
            StandardCharsets.US_ASCII);
    private static final byte[] REQUEST_END = "\r\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * Starts server {@code k} ({@code 1..9}) in namespace {@code ns} on {@code bind}:{@code port}, serving
     * {@code workDir/www<k>/id.txt}, its log in {@code workDir/http<k>.log}; the lab stops it. Wait for it with
     * {@link NetnsLab#awaitListening}.
     */
    public static Process startServer(NetnsLab lab, String ns, int k, String bind, int port, Path workDir)
            throws IOException {
        Path www = Files.createDirectories(workDir.resolve("www" + k));
        Files.writeString(www.resolve("id.txt"), "server-" + k + "\n");
        return lab.httpServer(ns, bind, port, www, workDir.resolve("http" + k + ".log"));
    }

    /**
     * Opens {@code n} TCP connections from namespace {@code ns} to {@code address}:{@code port}, connection i bound
     * to {@code local}:{@code firstPort + i} (SO_REUSEADDR; 5 s per connect, reads time out after 10 s).
     *
     * @throws IOException a bind or connect failed, or all took longer than NetNamespace's 30 s
     */
    public static List<Socket> connect(String ns, String local, int firstPort, int n, String address, int port)
            throws IOException, InterruptedException {
        return NetNamespace.callIn(ns, () -> {
            List<Socket> l = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Socket s = new Socket();
                s.setSoTimeout(READ_TIMEOUT_MS);
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(local, firstPort + i));
                s.connect(new InetSocketAddress(address, port), CONNECT_TIMEOUT_MS);
                l.add(s);
            }
            return l;
        });
    }

    /** Sends the request line and Host header, not the final empty line: the request stays open. */
    public static void begin(Socket s) throws IOException {
        s.getOutputStream().write(REQUEST_START);
    }

    /**
     * Ends the request {@link #begin} started, reads the response (≤ 64 KiB, bounded by the 10 s read timeout),
     * closes the socket and returns the server number the page names, asserting a 200 and a page of a server in
     * {@code 1..servers}.
     */
    public static int finish(Socket s, int servers) throws IOException {
        OutputStream o = s.getOutputStream();
        o.write(REQUEST_END);
        o.flush();
        byte[] all = s.getInputStream().readNBytes(MAX_RESPONSE);
        s.close();
        String r = new String(all, StandardCharsets.US_ASCII);
        assertThat(r).startsWith("HTTP/1.0 200 ");
        String body = r.substring(r.indexOf("\r\n\r\n") + 4);
        assertThat(body).matches("server-[1-" + servers + "]\n");
        return body.charAt(7) - '0';
    }

    /** {@link #begin} then {@link #finish}: the number of the server that answered. */
    public static int request(Socket s, int servers) throws IOException {
        begin(s);
        return finish(s, servers);
    }
}
