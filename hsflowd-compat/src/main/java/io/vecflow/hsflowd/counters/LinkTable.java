package io.vecflow.hsflowd.counters;

/**
 * The interfaces of one RTM_GETLINK dump ({@link RtnlLinkDumper}), in kernel order: preallocated entries reused from
 * dump to dump, so a dump allocates nothing. At most {@link #MAX_LINKS} are kept; more are counted in
 * {@link #overflow}.
 */
public final class LinkTable {
    /** Interfaces kept per dump. */
    public static final int MAX_LINKS = 4096;
    /** IFNAMSIZ ({@code include/uapi/linux/if.h}): names are at most 15 bytes plus NUL. */
    public static final int IFNAMSIZ = 16;
    /** Fields of {@code struct rtnl_link_stats64} read ({@code include/uapi/linux/if_link.h}, up to rx_nohandler). */
    public static final int STATS64_FIELDS = 24;

    // struct rtnl_link_stats64 field indexes (include/uapi/linux/if_link.h)
    /** rx_packets. */
    public static final int RX_PACKETS = 0;
    /** tx_packets. */
    public static final int TX_PACKETS = 1;
    /** rx_bytes. */
    public static final int RX_BYTES = 2;
    /** tx_bytes. */
    public static final int TX_BYTES = 3;
    /** rx_errors. */
    public static final int RX_ERRORS = 4;
    /** tx_errors. */
    public static final int TX_ERRORS = 5;
    /** rx_dropped. */
    public static final int RX_DROPPED = 6;
    /** tx_dropped. */
    public static final int TX_DROPPED = 7;
    /** multicast (received). */
    public static final int MULTICAST = 8;
    /** collisions. */
    public static final int COLLISIONS = 9;
    /** rx_length_errors. */
    public static final int RX_LENGTH_ERRORS = 10;
    /** rx_over_errors. */
    public static final int RX_OVER_ERRORS = 11;
    /** rx_crc_errors. */
    public static final int RX_CRC_ERRORS = 12;
    /** rx_frame_errors. */
    public static final int RX_FRAME_ERRORS = 13;
    /** rx_fifo_errors. */
    public static final int RX_FIFO_ERRORS = 14;
    /** rx_missed_errors. */
    public static final int RX_MISSED_ERRORS = 15;
    /** tx_aborted_errors. */
    public static final int TX_ABORTED_ERRORS = 16;
    /** tx_carrier_errors. */
    public static final int TX_CARRIER_ERRORS = 17;
    /** tx_fifo_errors. */
    public static final int TX_FIFO_ERRORS = 18;
    /** tx_heartbeat_errors. */
    public static final int TX_HEARTBEAT_ERRORS = 19;
    /** tx_window_errors. */
    public static final int TX_WINDOW_ERRORS = 20;
    /** rx_compressed. */
    public static final int RX_COMPRESSED = 21;
    /** tx_compressed. */
    public static final int TX_COMPRESSED = 22;
    /** rx_nohandler (kernel 4.6+). */
    public static final int RX_NOHANDLER = 23;

    /** One interface as RTM_NEWLINK describes it. */
    public static final class Link {
        /** ifi_index. */
        public int ifIndex;
        /** ifi_type: ARPHRD_* ({@code include/uapi/linux/if_arp.h}; 1 Ethernet, 772 loopback). */
        public int arpType;
        /** ifi_flags: IFF_* ({@code include/uapi/linux/if.h}; 0x1 UP, 0x8 LOOPBACK, 0x40 RUNNING, 0x100 PROMISC). */
        public int flags;
        /** IFLA_OPERSTATE: RFC 2863 state (0 unknown, 2 down, 5 dormant, 6 up); -1 if absent. */
        public int operState;
        /** IFLA_IFNAME bytes (no NUL), {@link #nameLength} of them. */
        public final byte[] name = new byte[IFNAMSIZ];
        /** Bytes used in {@link #name}. */
        public int nameLength;
        /** IFLA_ADDRESS as a 48-bit value when it is 6 bytes long. */
        public long mac;
        /** True if {@link #mac} holds a 6-byte IFLA_ADDRESS. */
        public boolean hasMac;
        /** IFLA_STATS64 values, indexed by the constants of {@link LinkTable}; fields a kernel lacks are 0. */
        public final long[] stats = new long[STATS64_FIELDS];
        /** True if the dump carried IFLA_STATS64. */
        public boolean hasStats;

        /** @return the name as a String (allocates; for logs and tests). */
        public String nameString() {
            return new String(name, 0, nameLength, java.nio.charset.StandardCharsets.UTF_8);
        }

        void clear() {
            ifIndex = arpType = flags = nameLength = 0;
            operState = -1;
            mac = 0;
            hasMac = hasStats = false;
            java.util.Arrays.fill(stats, 0);
        }
    }

    /** Entries; the first {@link #count} are this dump's. */
    public final Link[] links;
    /** Interfaces in the last dump (≤ {@link #MAX_LINKS}). */
    public int count;
    /** Interfaces of the last dump left out because the table was full. */
    public int overflow;

    /** Creates an empty table with all entries preallocated. */
    public LinkTable() {
        links = new Link[MAX_LINKS];
        for (int i = 0; i < links.length; i++) {
            links[i] = new Link();
        }
    }

    /** @return the entry for {@code ifIndex} in the last dump, or null (linear scan). */
    public Link byIndex(int ifIndex) {
        for (int i = 0; i < count; i++) {
            if (links[i].ifIndex == ifIndex) {
                return links[i];
            }
        }
        return null;
    }

    /** @return the entry named {@code name} (bytes {@code b[off, off + len)}) in the last dump, or null. */
    public Link byName(byte[] b, int off, int len) {
        for (int i = 0; i < count; i++) {
            Link l = links[i];
            if (l.nameLength == len && java.util.Arrays.equals(l.name, 0, len, b, off, off + len)) {
                return l;
            }
        }
        return null;
    }
}
