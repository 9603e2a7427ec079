package io.vecflow.dataplane.port;

import static io.vecflow.dataplane.port.PacketSys.TPACKET_ALIGNMENT;

/**
 * {@link AfPacketPort} ring and socket settings. Defaults: 128 KiB blocks × 32 (4 MiB receive ring per queue),
 * 2048-byte frame slots, 1 ms block retire timeout, 512 transmit slots of 2048 bytes, defrag off, promiscuous on, qdisc
 * bypass off.
 */
public final class AfPacketOptions {
    int blockSize = 128 * 1024;
    int blockCount = 32;
    int frameSize = 2048;
    int blockTimeoutMs = 1;
    int txFrameSize = 2048;
    int txFrames = 512;
    boolean defrag;
    boolean promiscuous = true;
    boolean qdiscBypass = false;
    boolean completeChecksums = true;
    boolean vnetHeader = true;

    /** @return a copy of the defaults. */
    public static AfPacketOptions defaults() {
        return new AfPacketOptions();
    }

    /**
     * @param bytes receive ring block size ({@code tp_block_size}): a multiple of the page size (4096) and of
     *     {@link #frameSize}; the longest frame received uncut is {@code bytes − 48 − 48 − 16} or so
     * @return this
     */
    public AfPacketOptions blockSize(int bytes) {
        this.blockSize = bytes;
        return this;
    }

    /** @param n receive ring blocks ({@code tp_block_nr}), ≥ 2 @return this */
    public AfPacketOptions blockCount(int n) {
        this.blockCount = n;
        return this;
    }

    /**
     * @param bytes nominal receive frame slot ({@code tp_frame_size}), a multiple of 16, ≥ 128; TPACKET_V3 packs
     *     frames of any size into a block, this only sets {@code tp_frame_nr}
     * @return this
     */
    public AfPacketOptions frameSize(int bytes) {
        this.frameSize = bytes;
        return this;
    }

    /**
     * @param ms block retire timeout ({@code tp_retire_blk_tov}, milliseconds, ≥ 1): a partly filled block is
     *     handed to {@link #rx} after at most this long, which bounds receive latency at low rates
     * @return this
     */
    public AfPacketOptions blockTimeoutMs(int ms) {
        this.blockTimeoutMs = ms;
        return this;
    }

    /**
     * @param bytes transmit slot size, a multiple of 16 dividing {@link #blockSize}; frames up to bytes − 48
     * @return this
     */
    public AfPacketOptions txFrameSize(int bytes) {
        this.txFrameSize = bytes;
        return this;
    }

    /** @param n transmit slots per queue (rounded up to whole blocks), ≥ 1 @return this */
    public AfPacketOptions txFrames(int n) {
        this.txFrames = n;
        return this;
    }

    /** @param on {@code PACKET_FANOUT_FLAG_DEFRAG}: reassemble IPv4 fragments before the fanout hash @return this */
    public AfPacketOptions defrag(boolean on) {
        this.defrag = on;
        return this;
    }

    /** @param on put the interface in promiscuous mode while the port is open @return this */
    public AfPacketOptions promiscuous(boolean on) {
        this.promiscuous = on;
        return this;
    }

    /**
     * @param on {@code PACKET_QDISC_BYPASS}: transmit straight to the driver, skipping the qdisc (faster; a busy
     *     device drops instead of queueing)
     * @return this
     */
    public AfPacketOptions qdiscBypass(boolean on) {
        this.qdiscBypass = on;
        return this;
    }

    /**
     * @param on complete the partial UDP/TCP checksum of frames the kernel marks {@code TP_STATUS_CSUMNOTREADY}
     *     (class comment), so they can be forwarded; on by default
     * @return this
     */
    public AfPacketOptions completeChecksums(boolean on) {
        this.completeChecksums = on;
        return this;
    }

    /**
     * @param on {@code PACKET_VNET_HDR} (class comment, "Offloads"): the kernel puts a virtio_net_hdr in front of
     *     every received frame, so GSO/GRO super-frames are recognised and cut into segments; on by default. Off,
     *     a super-frame is an ordinary frame longer than a buffer: delivered cut, a receive error
     * @return this
     */
    public AfPacketOptions vnetHeader(boolean on) {
        this.vnetHeader = on;
        return this;
    }

    void validate(String where) {
        check(blockSize > 0 && blockSize % 4096 == 0, where, "blockSize must be a positive multiple of 4096, got "
                + blockSize);
        check(blockCount >= 2, where, "blockCount must be >= 2, got " + blockCount);
        check(frameSize >= 128 && frameSize % TPACKET_ALIGNMENT == 0 && frameSize <= blockSize, where,
                "frameSize must be a multiple of 16 in [128, blockSize], got " + frameSize);
        check(blockTimeoutMs >= 1, where, "blockTimeoutMs must be >= 1, got " + blockTimeoutMs);
        check(txFrameSize >= 128 && txFrameSize % TPACKET_ALIGNMENT == 0 && txFrameSize <= blockSize, where,
                "txFrameSize must be a multiple of 16 in [128, blockSize], got " + txFrameSize);
        check(txFrames >= 1, where, "txFrames must be >= 1, got " + txFrames);
        check((long) blockSize * blockCount <= 1L << 30, where, "receive ring above 1 GiB per queue");
    }

    private static void check(boolean ok, String where, String msg) {
        if (!ok) {
            throw new IllegalArgumentException(where + ": " + msg);
        }
    }
}
