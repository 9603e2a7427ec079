package io.vecflow.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.common.Errno;
import org.junit.jupiter.api.Test;

/**
 * Resolves generic-netlink families against this machine's kernel. The error path uses a family no kernel has, so
 * the suite passes on kernels with or without psample and drop_monitor; the real families are checked in the kernel
 * lab (docs/kernel-lab.md).
 */
class GenlControllerTest {

    @Test
    void resolvesTheControllerItself() throws Exception {
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            GenlFamily f = GenlController.resolve(s, "nlctrl");
            assertThat(f.name()).isEqualTo("nlctrl");
            assertThat(f.id()).isEqualTo(0x10);
            assertThat(f.version()).isPositive();
            assertThat(f.maxAttr()).isNotNegative(); // 0 on kernels where nlctrl uses per-op policies
            assertThat(f.multicastGroups()).containsKey("notify");
            assertThat(f.groupId("notify")).isEqualTo(f.multicastGroups().get("notify")).isPositive();
            assertThatThrownBy(() -> f.groupId("packets")).hasMessageContaining("notify");
            // the socket stays usable for a second lookup
            assertThat(GenlController.resolve(s, "nlctrl").id()).isEqualTo(0x10);
        }
    }

    /** A family that cannot exist on any kernel: the error path, whatever modules this kernel has loaded. */
    static final String ABSENT = "vfNoSuchFamily";

    @Test
    void missingFamilyIsEnoentWithItsName() throws Exception {
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            assertThatThrownBy(() -> GenlController.resolve(s, ABSENT))
                    .isInstanceOfSatisfying(GenlFamilyNotFoundException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.ENOENT);
                        assertThat(e.family()).isEqualTo(ABSENT);
                    })
                    .hasMessage("generic netlink family \"" + ABSENT + "\" is not available on this kernel: load the "
                            + "kernel module that provides it (CTRL_CMD_GETFAMILY answered ENOENT (No such file or "
                            + "directory))");
            // the socket stays usable after the error reply
            assertThat(GenlController.resolve(s, "nlctrl").id()).isEqualTo(0x10);
        }
        assertThat(GenlController.isRegistered(ABSENT)).isFalse();
        assertThat(GenlController.isRegistered("nlctrl")).isTrue();
    }

    @Test
    void theMessageSaysHowToFixTheFamiliesVecflowUses() {
        assertThat(GenlFamilyNotFoundException.message("psample")).isEqualTo("generic netlink family \"psample\" is "
                + "not available on this kernel: load it with `modprobe psample`, or use `--transport usersock` "
                + "(CTRL_CMD_GETFAMILY answered ENOENT (No such file or directory))");
        assertThat(GenlFamilyNotFoundException.message("NET_DM")).isEqualTo("generic netlink family \"NET_DM\" is "
                + "not available on this kernel: load it with `modprobe drop_monitor` (CONFIG_NET_DROP_MONITOR) "
                + "(CTRL_CMD_GETFAMILY answered ENOENT (No such file or directory))");
    }

    @Test
    void bindAfterALookupIsEinval() throws Exception {
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            GenlController.resolve(s, "nlctrl");
            assertThat(s.portId()).isNotZero(); // auto-bound by the request
            assertThatThrownBy(() -> s.bind(0, 0))
                    .isInstanceOfSatisfying(NetlinkException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    /** The subscribers' genl opening (PSAMPLE "packets", NET_DM "events") on a family every kernel has. */
    @Test
    void openGenlBindsResolvesAndJoins() throws Exception {
        int[] seen = new int[3];
        try (NetlinkSocket s = NetlinkSubscriber.openGenl("nlctrl", "notify", (sock, type, group) -> {
            seen[0] = type;
            seen[1] = group;
            seen[2] = sock.portId();
            return sock;
        })) {
            int notify;
            try (NetlinkSocket probe = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
                notify = GenlController.resolve(probe, "nlctrl").groupId("notify");
            }
            assertThat(seen[0]).isEqualTo(0x10);
            assertThat(seen[1]).isEqualTo(notify).isPositive();
            assertThat(seen[2]).isNotZero().isEqualTo(s.portId());
        }
    }
}
