package io.vecflow.dataplane.plugins.lb;

/** L4 protocol of a per-port VIP (IANA protocol numbers). */
public enum Protocol {
    /** TCP, protocol 6. */
    TCP(6),
    /** UDP, protocol 17. */
    UDP(17);

    private final int number;

    Protocol(int number) {
        this.number = number;
    }

    /** IANA protocol number. */
    public int number() {
        return number;
    }
}
