package io.vecflow.sflow;

/**
 * Why a datagram, or part of one, could not be decoded. Each kind has its own counter in {@link DecodeStats}.
 */
public enum DecodeError {
    /** Fewer bytes than the structure needs (e.g. a datagram under 28 bytes, a record cut short). */
    TRUNCATED,
    /** The version word is not 5 (e.g. NetFlow v5 sent to port 6343). */
    NOT_SFLOW_V5,
    /** Agent address type 0 (unknown) or anything but 1/2: peers reject it, so do we. */
    BAD_AGENT_ADDRESS_TYPE,
    /** A declared length runs past its enclosing structure. */
    LENGTH_OUT_OF_BOUNDS,
    /** A declared count is above the sanity cap or cannot fit in the bytes left. */
    COUNT_OUT_OF_BOUNDS,
    /** A declared length is not a multiple of 4, or a fixed-size record has the wrong length. */
    BAD_LENGTH;
}
