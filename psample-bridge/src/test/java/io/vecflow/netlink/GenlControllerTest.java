package io.vecflow.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.common.Errno;
import org.junit.jupiter.api.Test;

/** Resolves generic-netlink families against this machine's kernel (spec "measured facts": no psample module). */
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

    @Test
    void missingPsampleFamilySaysHowToFixIt() throws Exception {
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            assertThatThrownBy(() -> GenlController.resolve(s, "psample"))
                    .isInstanceOfSatisfying(GenlFamilyNotFoundException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.ENOENT);
                        assertThat(e.family()).isEqualTo("psample");
                    })
                    .hasMessageContaining("generic netlink family \"psample\" is not available on this kernel")
                    .hasMessageContaining("modprobe psample")
                    .hasMessageContaining("--transport usersock")
                    .hasMessageContaining("ENOENT (No such file or directory)");
            assertThatThrownBy(() -> GenlController.resolve(s, "NET_DM"))
                    .isInstanceOf(GenlFamilyNotFoundException.class)
                    .hasMessageContaining("drop_monitor");
            assertThat(GenlController.resolve(s, "nlctrl").id()).isEqualTo(0x10);
        }
    }

    /**
     * Kernel fact (Linux {@code netlink_bind}; found in the kernel lab, issue 9): the lookup's sendto auto-binds the
     * socket, and a later {@code bind(nl_pid = 0)} is EINVAL. Subscribers therefore bind before resolving.
     */
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
