package io.vecflow.dataplane.control;

/**
 * A well-formed control command that the dataplane cannot carry out (an unknown interface, a missing VIP). The
 * message is shown to the user as is; the command exits with status {@link ControlProtocol#RC_FAILED}.
 */
public class ControlException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong, naming the object (e.g. {@code no interface "eth9" (known: eth0, eth1)}) */
    public ControlException(String message) {
        super(message);
    }
}
