package io.vecflow.packet;

import java.util.List;
import java.util.Objects;

/**
 * The whole content of a classic pcap file, as returned by
 * {@link PcapReader#readAll(java.nio.file.Path)}.
 *
 * @param linkType   link-layer type of every packet (file header {@code network} field)
 * @param snapLength the file header's {@code snaplen} in bytes (values above
 *                   {@link Integer#MAX_VALUE} are reported as {@link Integer#MAX_VALUE})
 * @param packets    the packets in file order; an unmodifiable list
 */
public record PcapFile(LinkType linkType, int snapLength, List<PcapPacket> packets) {

    /**
     * Validates and freezes the components.
     *
     * @throws NullPointerException if {@code linkType} or {@code packets} (or an element) is null
     */
    public PcapFile {
        Objects.requireNonNull(linkType, "linkType");
        packets = List.copyOf(packets);
    }
}
