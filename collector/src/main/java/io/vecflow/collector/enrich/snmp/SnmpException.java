package io.vecflow.collector.enrich.snmp;

import java.net.InetSocketAddress;

/**
 * A poll of one exporter that failed as a whole: the message names the agent ({@code address:port}), the SNMP
 * version and user (never a community or passphrase) and the reason. Interfaces the agent does not have are no
 * failure: they are listed in {@link SnmpPoller.Result#notFound()}.
 */
public final class SnmpException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a poll failed. */
    public enum Reason {
        /** No answer within timeout × (retries + 1) for every community (or the USM user) tried. */
        TIMEOUT,
        /**
         * SNMPv3 USM refused the request: unknown user, wrong digest (authentication passphrase or protocol),
         * decryption error, unsupported security level, outside the time window (RFC 3414 §3.2 reports).
         */
        AUTHENTICATION,
        /** The agent answered with an error status that denies access (noAccess, authorizationError). */
        REFUSED,
        /** The agent answered with another error status or report, or an answer that does not match the request. */
        AGENT_ERROR,
        /** The request could not be sent (socket error). */
        SEND_FAILED,
        /** The poller was closed before the poll finished. */
        CLOSED
    }

    private final transient InetSocketAddress agent;
    private final Reason reason;

    /**
     * @param agent the agent polled
     * @param reason why
     * @param message what happened (the agent is prefixed)
     */
    public SnmpException(InetSocketAddress agent, Reason reason, String message) {
        super("SNMP poll of " + label(agent) + " failed (" + reason.name().toLowerCase(java.util.Locale.ROOT)
                + "): " + message);
        this.agent = agent;
        this.reason = reason;
    }

    /** @return the agent that was polled */
    public InetSocketAddress agent() {
        return agent;
    }

    /** @return why the poll failed */
    public Reason reason() {
        return reason;
    }

    static String label(InetSocketAddress a) {
        String host = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
