package io.vecflow.lab.kernel;

/** One kernel-lab check: runs in the guest as root, throws (usually {@link AssertionError}) when it fails. */
public interface GuestCheck {
    /** @return short name used on the command line and in the log (e.g. {@code "kernel-to-agent"}). */
    String name();

    /** Runs the check, cleaning up what it set up (devices, tc filters, nft tables) also on failure. */
    void run() throws Exception;
}
