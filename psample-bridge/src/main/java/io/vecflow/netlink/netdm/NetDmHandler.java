package io.vecflow.netlink.netdm;

/** Receives decoded PACKET_ALERTs from {@link NetDmSubscriber#poll}. */
@FunctionalInterface
public interface NetDmHandler {
    /**
     * Called once per alert, on the polling thread.
     *
     * @param alert the subscriber's reused holder: valid only during this call (copy what must outlive it)
     */
    void onAlert(NetDmAlert alert);
}
