package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.UdpReceiver.Counters;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.dropmon.DropmonDaemon;
import io.vecflow.hsflowd.dropmon.DropmonSettings;
import io.vecflow.netlink.netdm.NetDm;
import io.vecflow.netlink.netdm.NetDmDropPoint;
import io.vecflow.netlink.netdm.NetDmEmitter;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppUsersock;
import io.vecflow.netlink.vpp.VppUsersockEmitter;
import io.vecflow.netlink.vpp.VppUsersockSubscriber;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The dataplane's emitters (psample-bridge's VppUsersockEmitter and NetDmEmitter) against the agent side, live as
 * root over NETLINK_USERSOCK: IF_COUNTERS and STATUS reach the vpp module and leave as a 0:4 counter sample whose
 * fields equal what was sent; drops sent as NET_DM alerts (kernel nested and VPP flat IN_PORT) reach mod_dropmon and
 * leave as 0:5 discard samples with the input port, the reason code mapped from REASON / the devlink trap, and the
 * trap and reason strings. Private groups 21–23 keep other tests out of the way.
 */
class DataplaneEmittersLiveTest {
    private static final int PS_GROUP = 21;
    private static final int VPP_GROUP = 22;
    private static final int DM_GROUP = 23;

    private static void await(BooleanSupplier cond, long ms, String what) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + ms + " ms waiting for " + what);
            }
            Thread.sleep(2);
        }
    }

    @Test
    void vppEmitterCountersBecomeACounterSampleFieldByField() throws Exception {
        try (UdpReceiver rx = new UdpReceiver(); VppUsersockEmitter em = VppUsersockEmitter.open(VPP_GROUP)) {
            HsflowdConfig c = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.9\n sampling = 1\n"
                    + " collector { ip = 127.0.0.1 udpport = " + rx.port() + " }\n"
                    + " psample { transport = usersock usersockGroup = " + PS_GROUP + " }\n"
                    + " vpp { osIndex = on usersockGroup = " + VPP_GROUP + " }\n}\n");
            SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.9"));
            PsampleSubscriber sub = HsflowdDaemon.openSubscriber(c);
            VppUsersockSubscriber vsub = HsflowdDaemon.openVppSubscriber(c);
            HsflowdDaemon d = new HsflowdDaemon(agent, sub, vsub, null);
            VppIfCounters ifc = new VppIfCounters().portName("veth-dpctl0").ifIndex(2).osIndex(17).ifType(6)
                    .ifSpeed(10_000_000_000L).ifDirection(1).operUp(1).adminUp(1)
                    .hwAddress(new byte[] {2, 0, 0, 0, 0, 1});
            // the agent's first IF_COUNTERS of a port only latches (hsflowd: totals since first seen)
            for (int id = VppUsersock.ATTR_RX_OCTETS; id <= VppUsersock.ATTR_TX_ERRORS; id++) {
                ifc.counter(id, 0);
            }
            assertThat(em.sendIfCounters(ifc)).isTrue();
            long[] v = {123_456_789L, 987_654L, 1000, 900, 10, 9, 20, 19, 3, 4, 5, 6}; // attribute ids 7..18
            for (int id = VppUsersock.ATTR_RX_OCTETS; id <= VppUsersock.ATTR_TX_ERRORS; id++) {
                ifc.counter(id, v[id - VppUsersock.ATTR_RX_OCTETS]);
            }
            assertThat(em.sendStatus(1, 0)).isTrue();
            assertThat(em.sendIfCounters(ifc)).isTrue();
            await(() -> agent.counterSamplesSent() == 2 && agent.vppStatusMessages() == 1, 3000,
                    "IF_COUNTERS and STATUS to reach the agent");
            assertThat(rx.awaitCounters(2, 3000)).isEqualTo(2);
            d.close();
            assertThat(d.failure()).isNull();

            List<Counters> cs = rx.counterSamples();
            assertThat(cs).hasSize(2);
            Counters s = cs.get(1);
            assertThat(s.sourceIndex()).isEqualTo(17);        // OSINDEX (osIndex = on)
            assertThat(s.portName()).isEqualTo("veth-dpctl0");
            assertThat(s.formats()).containsExactly(1005, 1); // hsflowd's wire order
            assertThat(s.ifCounters()).containsExactly(
                    17,                  // ifIndex
                    6,                   // ifType
                    10_000_000_000L,     // ifSpeed
                    1,                   // ifDirection full duplex
                    3,                   // ifStatus admin up | oper up
                    123_456_789L,        // inOctets = RX_OCTETS (change since first seen)
                    1000 - 20 - 10,      // inUcastPkts = RX_PKTS − RX_MCASTS − RX_BCASTS
                    20, 10,              // inMulticast, inBroadcast
                    3, 5,                // inDiscards, inErrors
                    0,                   // inUnknownProtos: 0, as hsflowd's mod_vpp
                    987_654L,            // outOctets
                    900 - 19 - 9,        // outUcastPkts
                    19, 9,               // outMulticast, outBroadcast
                    4, 6,                // outDiscards, outErrors
                    0);                  // promiscuousMode
            assertThat(vsub.decodeErrors()).isZero();
            assertThat(em.sendFailed()).isZero();
        }
    }

    @Test
    void netDmEmitterDropsBecomeDiscardSamplesWithMappedReasons() throws Exception {
        try (DatagramSocket sink = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             NetDmEmitter kernel = NetDmEmitter.openUsersock(DM_GROUP, NetDm.Convention.KERNEL);
             NetDmEmitter vpp = NetDmEmitter.openUsersock(DM_GROUP, NetDm.Convention.VPP)) {
            sink.setSoTimeout(5000);
            HsflowdConfig config = HsflowdConfig.parse("sflow {\n  headerBytes = 128\n  collector { ip = 127.0.0.1 "
                    + "udpport = " + sink.getLocalPort() + " }\n}\n");
            DropmonSettings settings = new DropmonSettings();
            settings.transport = "usersock";
            settings.usersockGroup = DM_GROUP;
            byte[] frame = new byte[98];
            frame[12] = 0x08;
            frame[14] = 0x45;
            NetDmDropPoint noRoute = NetDmDropPoint.of("ip4-lookup", "no route", "IP_INNOROUTES");
            NetDmDropPoint ttl = NetDmDropPoint.devlink("ip4-ttl", "l3_exceptions", "ttl_value_is_too_small",
                    NetDmDropPoint.NOT_SPECIFIED);
            List<String> got = new ArrayList<>();
            try (SflowAgent agent = new SflowAgent(config, InetAddress.getByName("127.0.0.1"))) {
                DropmonDaemon daemon = new DropmonDaemon(agent, settings, config.headerBytes,
                        DropmonDaemon.openSubscriber(settings));
                try {
                    assertThat(kernel.emitDrop(noRoute, 3, 0x0800, 98, frame, 98, 128, 0)).isTrue();
                    assertThat(vpp.emitDrop(ttl, 7, 0x0800, 98, frame, 64, 64, 0)).isTrue();
                    await(() -> daemon.module().alerts() == 2, 3000, "2 alerts at mod_dropmon");
                    long deadline = System.nanoTime() + 5_000_000_000L;
                    while (got.size() < 2 && System.nanoTime() < deadline) {
                        DatagramPacket p = new DatagramPacket(new byte[65536], 65536);
                        sink.receive(p);
                        decode(Arrays.copyOf(p.getData(), p.getLength()), got);
                    }
                    assertThat(daemon.subscriber().decodeErrors()).isZero();
                    assertThat(agent.discardsSent()).isEqualTo(2);
                } finally {
                    daemon.close();
                }
            }
            assertThat(got).containsExactly(
                    "src 0:3 in 3 reason 0 header 98/102 trap vpp_ip4-lookup/vpp_no_route linux IP_INNOROUTES",
                    "src 0:7 in 7 reason 257 header 64/102 trap l3_exceptions/ttl_value_is_too_small linux "
                            + "NOT_SPECIFIED");
        }
    }

    private static void decode(byte[] datagram, List<String> got) {
        SflowDecodeException err = new SflowDecoder(new DecodeStats()).decode(datagram, 0, datagram.length,
                new SflowVisitor() {
                    @Override
                    public void onDatagram(DatagramHeader h) {
                    }

                    @Override
                    public void onFlowSample(DatagramHeader h, FlowSample s) {
                        got.add("unexpected flow sample");
                    }

                    @Override
                    public void onDiscardSample(DatagramHeader h, FlowSample s) {
                        got.add("src 0:" + s.sourceIdIndex + " in " + s.input + " reason " + s.reason
                                + " header " + s.sampledHeader.header.length + "/" + s.sampledHeader.frameLength
                                + " trap " + s.hwTrap.group.asString() + "/" + s.hwTrap.trap.asString()
                                + " linux " + s.linuxDropReason.asString());
                    }
                });
        assertThat(err).isNull();
    }
}
