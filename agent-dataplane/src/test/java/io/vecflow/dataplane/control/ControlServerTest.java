package io.vecflow.dataplane.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control server on a real Unix-domain socket in a temp dir, with {@link ControlClient}. */
class ControlServerTest {
    private static final Duration T = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    @Test
    void commandsRunWithTheirStatusAndText() throws Exception {
        RecordingControl d = new RecordingControl();
        Path sock = dir.resolve("run/vecflow/dp.sock"); // parent dirs are created
        try (ControlServer s = ControlServer.start(sock, d)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sock))).isEqualTo("rw-rw----");
            assertThat(ControlClient.send(sock, "sflow sampling-rate 1000", T))
                    .isEqualTo(new ControlProtocol.Reply(0, ""));
            assertThat(ControlClient.send(sock, "show sflow", T))
                    .isEqualTo(new ControlProtocol.Reply(0, "sampling-rate 10000\n%odd line\ndone\n"));
            assertThat(ControlClient.send(sock, "sflow enable eth7", T))
                    .isEqualTo(new ControlProtocol.Reply(1, "error: no interface \"eth7\" (known: eth0, eth1)\n"));
            assertThat(ControlClient.send(sock, "sflow header-bytes 100", T)).isEqualTo(new ControlProtocol.Reply(2,
                    "error: token 3 \"100\" (column 20): header bytes must be 64..256 and a multiple of 32 (64, 96, "
                            + "128, 160, 192, 224 or 256)\n"));
            ControlProtocol.Reply r = ControlClient.send(sock, "show runtime", T);
            assertThat(r.rc()).isEqualTo(3);
            assertThat(r.text()).isEqualTo("internal error: java.lang.IllegalStateException: runtime view broke\n");
            assertThat(ControlClient.send(sock, "lb as del 192.0.2.1/32 10.0.0.2 flush", T).rc()).isZero();
            assertThat(d.calls).containsExactly("samplingRate 1000", "showSflow", "showRuntime",
                    "delBackends 192.0.2.1/32 10.0.0.2 flush");
            assertThat(s.commandsOk()).isEqualTo(3);
            assertThat(s.commandsFailed()).isEqualTo(1);
            assertThat(s.usageErrors()).isEqualTo(1);
            assertThat(s.internalErrors()).isEqualTo(1);
            assertThat(s.lastInternalError())
                    .isEqualTo("show runtime: java.lang.IllegalStateException: runtime view broke");
        }
        assertThat(sock).doesNotExist();
    }

    @Test
    void parallelClientsAreServedButCommandsNeverOverlap() throws Exception {
        RecordingControl d = new RecordingControl();
        d.callMillis = 5;
        Path sock = dir.resolve("dp.sock");
        try (ControlServer s = ControlServer.start(sock, d); ExecutorService ex = Executors.newFixedThreadPool(6)) {
            List<Future<ControlProtocol.Reply>> fs = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                int n = i;
                fs.add(ex.submit(() -> ControlClient.send(sock, "sflow sampling-rate " + n, Duration.ofSeconds(20))));
            }
            int ok = 0;
            for (Future<ControlProtocol.Reply> f : fs) {
                ControlProtocol.Reply r = f.get();
                ok += r.rc() == 0 ? 1 : 0;
                assertThat(r.rc() == 0 || r.text().startsWith("busy: 8 control commands")).as(r.toString()).isTrue();
            }
            assertThat(ok + s.busyRejections()).isEqualTo(30);
            assertThat(d.calls).hasSize(ok);
            assertThat(ok).isPositive();
            assertThat(d.maxInFlight.get()).isEqualTo(1);
        }
    }

    @Test
    void silentClientIsCutOffAndOversizedLinesRejected() throws Exception {
        RecordingControl d = new RecordingControl();
        Path sock = dir.resolve("dp.sock");
        try (ControlServer s = ControlServer.start(sock, d, Duration.ofMillis(200));
             SocketChannel silent = SocketChannel.open(UnixDomainSocketAddress.of(sock))) {
            long t0 = System.nanoTime();
            int n = silent.read(ByteBuffer.allocate(64)); // the server closes: end of stream, no reply
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(n).isEqualTo(-1);
            assertThat(ms).isBetween(150L, 3000L);
            assertThat(s.requestTimeouts()).isEqualTo(1);

            try (SocketChannel big = SocketChannel.open(UnixDomainSocketAddress.of(sock))) {
                ByteBuffer b = ByteBuffer.wrap(("sflow " + "x".repeat(5000) + "\n").getBytes(StandardCharsets.UTF_8));
                while (b.hasRemaining()) {
                    big.write(b);
                }
                big.shutdownOutput();
                ByteBuffer in = ByteBuffer.allocate(4096);
                while (big.read(in) >= 0 && in.hasRemaining()) { }
                String reply = new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
                assertThat(ControlProtocol.decodeReply(reply))
                        .isEqualTo(new ControlProtocol.Reply(2, "error: command longer than 4096 bytes\n"));
            }
            assertThat(d.calls).isEmpty();
        }
    }

    @Test
    void staleSocketIsReplacedALiveOneIsAnError() throws Exception {
        Path sock = dir.resolve("dp.sock");
        // a stale socket file: bound, then its server closed (the file stays)
        ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        dead.bind(UnixDomainSocketAddress.of(sock));
        dead.close();
        assertThat(sock).exists();
        RecordingControl d = new RecordingControl();
        try (ControlServer s = ControlServer.start(sock, d)) {
            assertThat(ControlClient.send(sock, "sflow direction both", T).rc()).isZero();
            assertThatThrownBy(() -> ControlServer.start(sock, new RecordingControl()))
                    .isInstanceOf(IOException.class)
                    .hasMessage("control socket " + sock + " is in use by a running process (another dataplane?); "
                            + "stop it or configure another control socket path");
            assertThat(ControlClient.send(sock, "show lb", T)).isEqualTo(new ControlProtocol.Reply(0, "lb\n"));
        }
        assertThat(d.calls).containsExactly("direction BOTH", "showLb");
    }

    /** The socket file given to a group (Debian's nogroup here; root may give a file to any group, as CI runs). */
    @Test
    void theSocketBelongsToTheConfiguredGroupAndAMissingGroupIsNamed() throws Exception {
        Path sock = dir.resolve("dp.sock");
        try (ControlServer s = ControlServer.start(sock, new RecordingControl(), T, "nogroup")) {
            assertThat(Files.readAttributes(sock, java.nio.file.attribute.PosixFileAttributes.class).group().getName())
                    .isEqualTo("nogroup");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sock))).isEqualTo("rw-rw----");
            assertThat(ControlClient.send(sock, "show lb", T).rc()).isZero();
        }
        assertThatThrownBy(() -> ControlServer.start(dir.resolve("b.sock"), new RecordingControl(), T,
                "no-such-group-x")).isInstanceOf(IOException.class)
                .hasMessageContaining("control-socket-group no-such-group-x: no such group");
    }

    @Test
    void clientErrorsNameTheSocket() throws Exception {
        Path none = dir.resolve("none.sock");
        assertThatThrownBy(() -> ControlClient.send(none, "show sflow", T))
                .isInstanceOf(IOException.class)
                .hasMessage("no control socket at " + none + " (is `vecflow dataplane` running? its config's "
                        + "control-socket names the path)");
        Path stale = dir.resolve("stale.sock");
        ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        dead.bind(UnixDomainSocketAddress.of(stale));
        dead.close();
        assertThatThrownBy(() -> ControlClient.send(stale, "show sflow", T))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot connect to the control socket " + stale + ": ")
                .hasMessageEndingWith("(a stale socket file: is the dataplane running?)");
        assertThatThrownBy(() -> ControlClient.send(stale, "a\nb", T))
                .hasMessage("a control command is one line; it contains a line break");

        // a server that accepts but never answers: the client gives up after its timeout
        Path mute = dir.resolve("mute.sock");
        try (ServerSocketChannel m = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            m.bind(UnixDomainSocketAddress.of(mute));
            assertThatThrownBy(() -> ControlClient.send(mute, "show sflow", Duration.ofMillis(200)))
                    .isInstanceOf(IOException.class)
                    .hasMessage("no complete reply from the control socket " + mute + " within 200 ms");
        }
    }
}
