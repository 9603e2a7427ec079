package io.vecflow.collector.enrich.snmp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.enrich.snmp.SnmpPoller.InterfaceResult;
import io.vecflow.collector.enrich.snmp.SnmpPoller.Result;
import io.vecflow.collector.enrich.snmp.SnmpPoller.Settings;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * {@link SnmpPoller} against the real net-snmp agent on 127.0.0.1 (and ::1), with the real {@code snmpget} as the
 * judge of what the agent serves: SNMPv2c and every SNMPv3 USM protocol the agent has, the failures (wrong
 * passphrase, unknown user, no agent) and the counters.
 */
class SnmpPollerTest {
    private static final String SYS_NAME = "1.3.6.1.2.1.1.5.0";
    private static SnmpdFixture snmpd;
    private static SnmpPoller poller;
    private static long lo;

    @BeforeAll
    static void start() throws Exception {
        snmpd = SnmpdFixture.start();
        poller = new SnmpPoller(Settings.DEFAULTS);
        lo = SnmpdFixture.ifIndex(null, "lo");
    }

    @AfterAll
    static void stop() {
        if (poller != null) {
            poller.close();
        }
        if (snmpd != null) {
            snmpd.close();
        }
    }

    private static Result get(CompletableFuture<Result> f) throws Exception {
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("poll failed: " + e.getCause().getMessage() + "; snmpd log: " + snmpd.log(),
                    e.getCause());
        }
    }

    private static SnmpException failure(CompletableFuture<Result> f) throws Exception {
        try {
            Result r = f.get(20, TimeUnit.SECONDS);
            throw new AssertionError("the poll should have failed, got " + r);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(SnmpException.class);
            return (SnmpException) e.getCause();
        }
    }

    /** What the judge says the poller must report for an interface of this agent. */
    private static InterfaceResult expected(SnmpdFixture agent, long ifIndex) throws Exception {
        Map<String, String> v = agent.snmpget("1.3.6.1.2.1.2.2.1.2." + ifIndex, "1.3.6.1.2.1.31.1.1.1.1." + ifIndex,
                "1.3.6.1.2.1.31.1.1.1.18." + ifIndex, "1.3.6.1.2.1.31.1.1.1.15." + ifIndex);
        List<String> x = List.copyOf(v.values());
        String descr = x.get(0);
        String name = x.get(1);
        String alias = x.get(2);
        String description = !alias.isEmpty() && !alias.equals(name) ? alias : !descr.equals(name) ? descr : "";
        return new InterfaceResult(ifIndex, name, description, Long.parseLong(x.get(3)));
    }

    @Test
    void v2cReadsSysNameAndLoopbackAsSnmpgetDoes() throws Exception {
        long requests = poller.requests();
        Result r = get(poller.poll(snmpd.agent(), SnmpCredentials.v2c(SnmpdFixture.COMMUNITY), new long[] {lo}));

        String hostname = SnmpdFixture.sh("hostname").strip();
        assertThat(r.exporter()).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(r.sysName()).isEqualTo(snmpd.snmpget(SYS_NAME).get(SYS_NAME)).isEqualTo(hostname);
        InterfaceResult want = expected(snmpd, lo);
        assertThat(want.name()).isEqualTo("lo");
        assertThat(want.description()).isEmpty(); // ifDescr "lo" = ifName, no ifAlias
        assertThat(r.interfaces()).containsExactly(want);
        assertThat(r.notFound()).isEmpty();
        assertThat(poller.requests() - requests).isEqualTo(1);
    }

    @Test
    void indexesTheAgentCannotHaveAreNotFoundAndDuplicatesAskedOnce() throws Exception {
        Result r = get(poller.poll(snmpd.agent(), SnmpCredentials.v2c(SnmpdFixture.COMMUNITY),
                new long[] {0, lo, 2_147_483_647L, -5, lo, 1L << 40}));
        assertThat(r.interfaces()).extracting(InterfaceResult::ifIndex).containsExactly(lo);
        assertThat(r.notFound()).containsExactly(0L, 2_147_483_647L, -5L, 1L << 40);
    }

    @Test
    void noInterfacesAskedGivesTheSysNameAlone() throws Exception {
        Result r = get(poller.poll(snmpd.agent(), SnmpCredentials.v2c(SnmpdFixture.COMMUNITY), new long[0]));
        assertThat(r.sysName()).isEqualTo(snmpd.snmpget(SYS_NAME).get(SYS_NAME));
        assertThat(r.interfaces()).isEmpty();
        assertThat(r.notFound()).isEmpty();
    }

    @Test
    void communitiesAreTriedInOrderAndTheOneThatAnsweredFirstNextTime() throws Exception {
        try (SnmpPoller p = new SnmpPoller(new Settings(200, 0, 161, 10))) {
            SnmpCredentials c = SnmpCredentials.v2c("not-this-one", "nor-this", SnmpdFixture.COMMUNITY);
            long t0 = System.nanoTime();
            Result r = get(p.poll(snmpd.agent(), c, new long[] {lo}));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(r.interfaces()).extracting(InterfaceResult::name).containsExactly("lo");
            assertThat(ms).as("two wrong communities waited for, 200 ms each").isGreaterThanOrEqualTo(390);
            assertThat(p.timeouts()).isEqualTo(2);
            assertThat(p.requests()).isEqualTo(3);

            Result again = get(p.poll(snmpd.agent(), c, new long[] {lo}));
            assertThat(again).isEqualTo(r);
            assertThat(p.timeouts()).as("the community that answered is tried first").isEqualTo(2);
            assertThat(p.requests()).isEqualTo(4);
        }
    }

    @Test
    void v3AuthPrivShaAes() throws Exception {
        Result r = get(poller.poll(snmpd.agent(), SnmpdFixture.USER.credentials(), new long[] {lo}));
        assertThat(SnmpdFixture.USER.credentials().securityLevel())
                .isEqualTo(SnmpCredentials.SecurityLevel.AUTH_PRIV);
        assertThat(r.sysName()).isEqualTo(snmpd.snmpget(SYS_NAME).get(SYS_NAME));
        assertThat(r.interfaces()).containsExactly(expected(snmpd, lo));
    }

    static final List<SnmpdFixture.User> USERS = SnmpdFixture.USERS;

    /** Every protocol and security level, each with a poller of its own (first contact: engine ID discovery). */
    @ParameterizedTest
    @FieldSource("USERS")
    void v3EveryProtocolAndLevel(SnmpdFixture.User user) throws Exception {
        try (SnmpPoller p = new SnmpPoller(Settings.DEFAULTS)) {
            Result r = get(p.poll(snmpd.agent(), user.credentials(), new long[] {lo}));
            assertThat(r.sysName()).isEqualTo(snmpd.snmpget(SYS_NAME).get(SYS_NAME));
            assertThat(r.interfaces()).containsExactly(expected(snmpd, lo));
            // engine ID discovery, then the GET (whose time window SNMP4J synchronises inside the same request)
            assertThat(p.requests()).isEqualTo(2);
            Result again = get(p.poll(snmpd.agent(), user.credentials(), new long[] {lo}));
            assertThat(again).isEqualTo(r);
            assertThat(p.requests()).as("the engine ID is known now").isEqualTo(3);
            assertThat(p.timeouts() + p.errors()).isZero();
        }
    }

    @Test
    void v3WrongAuthenticationPassphraseFailsAtOnceNamingTheAgentAndTheDigest() throws Exception {
        SnmpdFixture.User u = SnmpdFixture.USER;
        SnmpCredentials wrong = SnmpCredentials.v3(u.name(), u.authProtocol(), "not-the-passphrase",
                u.privProtocol(), u.privPassphrase());
        long errors = poller.errors();
        long t0 = System.nanoTime();
        SnmpException e = failure(poller.poll(snmpd.agent(), wrong, new long[] {lo}));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        assertThat(e.reason()).isEqualTo(SnmpException.Reason.AUTHENTICATION);
        assertThat(e.agent()).isEqualTo(snmpd.agent());
        assertThat(e.getMessage()).contains("127.0.0.1:" + snmpd.port(), "wrong digest", "authentication passphrase",
                "usmStatsWrongDigests", "user \"vecflow\"").doesNotContain("not-the-passphrase");
        assertThat(ms).as("the agent's report is taken, no timeout waited for").isLessThan(900);
        assertThat(poller.errors() - errors).isEqualTo(1);

        // the right passphrase still works afterwards (the engine ID was forgotten and is discovered again)
        assertThat(get(poller.poll(snmpd.agent(), u.credentials(), new long[] {lo})).interfaces()).hasSize(1);
    }

    @Test
    void v3UnknownUserFailsNamingTheUser() throws Exception {
        SnmpCredentials nobody = SnmpCredentials.v3("nobody-here", "SHA", "some-passphrase", null, null);
        SnmpException e = failure(poller.poll(snmpd.agent(), nobody, new long[] {lo}));
        assertThat(e.reason()).isEqualTo(SnmpException.Reason.AUTHENTICATION);
        assertThat(e.getMessage()).contains("127.0.0.1:" + snmpd.port(), "does not know user \"nobody-here\"",
                "usmStatsUnknownUserNames");
    }

    @Test
    void v3SecurityLevelAboveTheUsersIsRefused() throws Exception {
        // vf-sha256-auth is authNoPriv in snmpd.conf (rouser ... auth) and has no privacy key: authPriv cannot work
        SnmpCredentials c = SnmpCredentials.v3("vf-sha256-auth", "SHA256", "sha256-auth-pass", "AES",
                "whatever-priv-pass");
        try (SnmpPoller p = new SnmpPoller(new Settings(300, 0, 161, 10))) {
            SnmpException e = failure(p.poll(snmpd.agent(), c, new long[] {lo}));
            assertThat(e.reason()).isEqualTo(SnmpException.Reason.AUTHENTICATION);
            assertThat(e.getMessage()).contains("127.0.0.1:" + snmpd.port(), "does not support authPriv",
                    "user \"vf-sha256-auth\"", "usmStatsUnsupportedSecLevels");
        }
    }

    @Test
    void v3WrongPrivacyPassphraseTimesOutSayingWhy() throws Exception {
        SnmpdFixture.User u = SnmpdFixture.USER;
        SnmpCredentials wrong = SnmpCredentials.v3(u.name(), u.authProtocol(), u.authPassphrase(), u.privProtocol(),
                "not-the-privacy-pass");
        try (SnmpPoller p = new SnmpPoller(new Settings(300, 1, 161, 10))) {
            SnmpException e = failure(p.poll(snmpd.agent(), wrong, new long[] {lo}));
            // net-snmp drops what it cannot decrypt ("security service 3 error parsing ScopedPDU"): no report
            assertThat(e.reason()).isEqualTo(SnmpException.Reason.TIMEOUT);
            assertThat(e.getMessage()).contains("127.0.0.1:" + snmpd.port(), "privacy passphrase");
        }
    }

    @Test
    void noAgentTimesOutAfterTimeoutTimesTriesAndTheCountersMove() throws Exception {
        int closed;
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            closed = s.getLocalPort();
        }
        InetSocketAddress nobody = new InetSocketAddress("127.0.0.1", closed);
        try (SnmpPoller p = new SnmpPoller(new Settings(300, 1, 161, 10))) {
            for (SnmpCredentials c : List.of(SnmpCredentials.v2c(SnmpdFixture.COMMUNITY),
                    SnmpdFixture.USER.credentials())) {
                long requests = p.requests();
                long timeouts = p.timeouts();
                long t0 = System.nanoTime();
                SnmpException e = failure(p.poll(nobody, c, new long[] {1, 2, 3}));
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

                assertThat(e.reason()).isEqualTo(SnmpException.Reason.TIMEOUT);
                assertThat(e.getMessage()).contains("127.0.0.1:" + closed, "no answer within 300 ms × 2 tries");
                assertThat(ms).as("300 ms × (1 + 1 retry)").isBetween(580L, 2500L);
                assertThat(p.requests() - requests).isEqualTo(1);
                assertThat(p.timeouts() - timeouts).isEqualTo(1);
            }
            assertThat(p.errors()).isZero();
        }
    }

    @Test
    void closeFailsThePollsInProgressAndLaterOnes() throws Exception {
        int closed;
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            closed = s.getLocalPort();
        }
        SnmpPoller p = new SnmpPoller(new Settings(10_000, 0, 161, 10));
        CompletableFuture<Result> pending = p.poll(new InetSocketAddress("127.0.0.1", closed),
                SnmpCredentials.v2c("x-community"), new long[] {1});
        long t0 = System.nanoTime();
        p.close();
        SnmpException e = failure(pending);
        assertThat(e.reason()).isEqualTo(SnmpException.Reason.CLOSED);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(5_000);
        SnmpException later = failure(p.poll(snmpd.agent(), SnmpCredentials.v2c("x-community"), new long[] {1}));
        assertThat(later.reason()).isEqualTo(SnmpException.Reason.CLOSED);
        p.close(); // idempotent
    }

    @Test
    void ipv6Agent() throws Exception {
        try (SnmpdFixture v6 = SnmpdFixture.builder().address("::1").sysName("v6-agent.example").start()) {
            for (SnmpCredentials c : List.of(SnmpCredentials.v2c(SnmpdFixture.COMMUNITY),
                    SnmpdFixture.USER.credentials())) {
                Result r = get(poller.poll(v6.agent(), c, new long[] {lo}));
                assertThat(r.exporter()).isEqualTo(InetAddress.getByName("::1"));
                assertThat(r.sysName()).isEqualTo("v6-agent.example").isEqualTo(v6.snmpget(SYS_NAME).get(SYS_NAME));
                assertThat(r.interfaces()).containsExactly(expected(v6, lo));
            }
        }
    }

    @Test
    void defaultPortComesFromTheSettings() throws Exception {
        try (SnmpPoller p = new SnmpPoller(new Settings(1000, 1, snmpd.port(), 10))) {
            Result r = get(p.poll(InetAddress.getByName("127.0.0.1"), SnmpCredentials.v2c(SnmpdFixture.COMMUNITY),
                    new long[] {lo}));
            assertThat(r.interfaces()).hasSize(1);
        }
        assertThat(Settings.DEFAULTS).isEqualTo(new Settings(1000, 1, 161, 10));
    }

    @Test
    void settingsOutOfRangeAreRefusedByName() {
        assertThatThrownBy(() -> new Settings(0, 1, 161, 10)).hasMessage("SNMP timeout 0 ms (need 1..60000 ms)");
        assertThatThrownBy(() -> new Settings(1000, 11, 161, 10)).hasMessage("SNMP retries 11 (need 0..10)");
        assertThatThrownBy(() -> new Settings(1000, 1, 70000, 10)).hasMessage("SNMP port 70000 (need 1..65535)");
        assertThatThrownBy(() -> new Settings(1000, 1, 161, 0))
                .hasMessage("SNMP interfaces per request 0 (need 1..100)");
    }
}
