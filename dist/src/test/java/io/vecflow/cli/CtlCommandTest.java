package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.control.ControlException;
import io.vecflow.dataplane.control.ControlServer;
import io.vecflow.dataplane.control.DataplaneControl;
import io.vecflow.dataplane.plugins.lb.Vip;
import io.vecflow.dataplane.plugins.lb.VipKey;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code vecflow ctl} against a real control socket in a temp dir; the dataplane behind it is a recording double of
 * our own DataplaneControl interface (dispatch test).
 */
class CtlCommandTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        CommandLine cl = VecflowCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Records calls; knows interface eth0 only. */
    static final class Recorder implements DataplaneControl {
        final List<String> calls = new ArrayList<>();

        @Override public void setSamplingRate(int n) { calls.add("rate " + n); }
        @Override public void setPollingInterval(int s) { calls.add("poll " + s); }
        @Override public void setHeaderBytes(int b) { calls.add("hdr " + b); }
        @Override public void setDirection(Direction d) { calls.add("dir " + d.word()); }
        @Override public void setInterfaceSampling(String ifName, boolean on) throws ControlException {
            if (!ifName.equals("eth0")) {
                throw new ControlException("no interface \"" + ifName + "\" (known: eth0)");
            }
            calls.add("if " + ifName + " " + on);
        }
        @Override public void setDropMonitoring(boolean on) { calls.add("dropmon " + on); }
        @Override public String showSflow() { calls.add("show sflow"); return "sampling-rate 1000\nheader-bytes 128"; }
        @Override public String showErrors() { return ""; }
        @Override public String showInterfaces() { return ""; }
        @Override public String showRuntime() { return ""; }
        @Override public void addVip(Vip vip) { calls.add("vip " + vip.key() + " " + vip.encap().word()); }
        @Override public void delVip(VipKey key) { calls.add("del vip " + key); }
        @Override public void addBackends(VipKey vip, List<InetAddress> as) { calls.add("as " + vip + " "
                + as.size()); }
        @Override public void delBackends(VipKey vip, List<InetAddress> as, boolean flush) { calls.add("del as"); }
        @Override public String showLb() { return ""; }
        @Override public String showLbFlows() { return ""; }
    }

    @Test
    void ctlSendsTheWordsAndExitsWithTheDataplanesStatus() throws Exception {
        Recorder d = new Recorder();
        Path sock = dir.resolve("dp.sock");
        try (ControlServer s = ControlServer.start(sock, d)) {
            String sk = sock.toString();
            assertThat(run("ctl", "--socket", sk, "sflow", "sampling-rate", "1000")).isEqualTo(new Run(0, "", ""));
            assertThat(run("ctl", "-s", sk, "show", "sflow"))
                    .isEqualTo(new Run(0, "sampling-rate 1000\nheader-bytes 128\n", ""));
            assertThat(run("ctl", "-s", sk, "lb", "vip", "192.0.2.1/32", "encap", "srv6").exit()).isZero();
            assertThat(run("ctl", "-s", sk, "sflow", "enable", "eth9"))
                    .isEqualTo(new Run(1, "", "error: no interface \"eth9\" (known: eth0)\n"));
            assertThat(run("ctl", "-s", sk, "sflow", "header-bytes", "100")).isEqualTo(new Run(2, "",
                    "error: token 3 \"100\" (column 20): header bytes must be 64..256 and a multiple of 32 (64, 96, "
                            + "128, 160, 192, 224 or 256)\n"));
            assertThat(d.calls).containsExactly("rate 1000", "show sflow", "vip 192.0.2.1/32 srv6");
        }
        Run gone = run("ctl", "-s", sock.toString(), "show", "sflow");
        assertThat(gone.exit()).isEqualTo(1);
        assertThat(gone.err()).isEqualTo("vecflow ctl: no control socket at " + sock
                + " (is `vecflow dataplane` running? its config's control-socket names the path)\n");
    }

    @Test
    void helpListsTheCommandsAndBadOptionsAreUsageErrors() {
        Run h = run("ctl", "--help");
        assertThat(h.exit()).isZero();
        assertThat(h.out()).startsWith("Usage: vecflow ctl").contains("--socket=PATH", "/run/vecflow/dataplane.sock",
                "sflow sampling-rate N", "lb vip [add|del] PREFIX");
        Run none = run("ctl");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("Missing required parameter: 'COMMAND'");
        Run t = run("ctl", "--timeout", "0", "show", "sflow");
        assertThat(t.exit()).isEqualTo(2);
        assertThat(t.err()).isEqualTo("vecflow ctl: --timeout 0.0 is out of range: need 0 < SECONDS <= 3600\n");
    }
}
