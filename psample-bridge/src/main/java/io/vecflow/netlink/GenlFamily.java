package io.vecflow.netlink;

import io.vecflow.common.Errno;
import java.util.Map;

/**
 * A resolved generic-netlink family, from the controller's CTRL_CMD_NEWFAMILY reply
 * ({@code include/uapi/linux/genetlink.h}: CTRL_ATTR_FAMILY_ID u16, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_VERSION u32,
 * CTRL_ATTR_HDRSIZE u32, CTRL_ATTR_MAXATTR u32, CTRL_ATTR_MCAST_GROUPS {GRP_NAME, GRP_ID u32}).
 *
 * @param name            family name, e.g. "nlctrl"
 * @param id              family id: the nlmsg_type of its messages (nlctrl is 0x10)
 * @param version         family version
 * @param headerSize      bytes of family-specific header after the genlmsghdr
 * @param maxAttr         highest attribute id the family accepts
 * @param multicastGroups multicast group name → group id (join with {@link NetlinkSocket#joinGroup(int)})
 */
public record GenlFamily(String name, int id, int version, int headerSize, int maxAttr,
                         Map<String, Integer> multicastGroups) {

    /** Canonical constructor: copies the group map (immutable). */
    public GenlFamily {
        multicastGroups = Map.copyOf(multicastGroups);
    }

    /**
     * Id of a multicast group of this family.
     *
     * @param groupName e.g. "packets" for psample, "notify" for nlctrl
     * @return the group id
     * @throws NetlinkException ENOENT if the family has no such group (the message lists the groups it has)
     */
    public int groupId(String groupName) throws NetlinkException {
        Integer id = multicastGroups.get(groupName);
        if (id == null) {
            throw new NetlinkException("generic netlink family \"" + name + "\" group \"" + groupName + "\"",
                    Errno.ENOENT, "the family has groups " + multicastGroups.keySet());
        }
        return id;
    }
}
