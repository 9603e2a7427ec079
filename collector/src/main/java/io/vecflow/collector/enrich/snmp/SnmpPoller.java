package io.vecflow.collector.enrich.snmp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.CommunityTarget;
import org.snmp4j.DirectUserTarget;
import org.snmp4j.MessageDispatcherImpl;
import org.snmp4j.PDU;
import org.snmp4j.ScopedPDU;
import org.snmp4j.Snmp;
import org.snmp4j.Target;
import org.snmp4j.UserTarget;
import org.snmp4j.event.ResponseEvent;
import org.snmp4j.event.ResponseListener;
import org.snmp4j.mp.CounterSupport;
import org.snmp4j.mp.MPv2c;
import org.snmp4j.mp.MPv3;
import org.snmp4j.mp.PduHandle;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.security.SecurityLevel;
import org.snmp4j.security.SecurityModels;
import org.snmp4j.security.SecurityProtocols;
import org.snmp4j.security.USM;
import org.snmp4j.smi.Address;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.UnsignedInteger32;
import org.snmp4j.smi.Variable;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.transport.DefaultUdpTransportMapping;

/**
 * Polls exporters' SNMP agents for the metadata Akvorado's SNMP provider reads: {@code sysName.0}
 * (1.3.6.1.2.1.1.5.0) and, per ifIndex i, {@code ifDescr.i} (1.3.6.1.2.1.2.2.1.2), {@code ifName.i}
 * (1.3.6.1.2.1.31.1.1.1.1), {@code ifAlias.i} (1.3.6.1.2.1.31.1.1.1.18) and {@code ifHighSpeed.i}
 * (1.3.6.1.2.1.31.1.1.1.15, Gauge32, Mb/s) of IF-MIB (RFC 2863), with GET requests over SNMPv2c or SNMPv3 USM
 * ({@link SnmpCredentials}).
 *
 * <p>What a poll returns ({@link Result}): the interface name is ifName; the description is ifAlias when it is not
 * empty and differs from ifName, else ifDescr when it differs from ifName, else empty; the speed is ifHighSpeed. An
 * ifIndex whose ifName or ifHighSpeed the agent does not have (noSuchInstance, noSuchObject, or another type) is
 * listed in {@link Result#notFound()}; so is an ifIndex outside 1..2147483647 (no agent can have it), without being
 * asked. A missing or empty sysName gives an empty exporter name. Neither is a failure.
 *
 * <p>Batching: the first GET carries sysName and up to {@link Settings#interfacesPerRequest()} interfaces (4
 * variable bindings each, so 10 interfaces = 41 bindings), the next ones only interfaces; requests go one after the
 * other, so one poll holds one request outstanding at a time (1000 interfaces at 10 per request = 100 round trips,
 * not 1000). An agent that answers tooBig gets the same interfaces again in halves (for the rest of the poll). Any
 * other failure fails the whole poll with an {@link SnmpException} naming the agent and the reason; results of the
 * requests already answered are dropped.
 *
 * <p>SNMPv2c: the communities are tried in order on the first request, each for timeout × (retries + 1) (a wrong
 * community gets no answer: agents drop it), and the first that answers is used for the rest of the poll and tried
 * first on the next poll of that agent. SNMPv3: the agent's authoritative engine ID is discovered once (one
 * noAuthNoPriv request, RFC 3414 §4; SNMP4J caches it per agent address and synchronises the engine time on the first
 * authenticated request), then the passphrases are localised to it (RFC 3414 §2.6, cached per engine and credentials)
 * and handed to SNMP4J with each request ({@link DirectUserTarget}), so that agents using the same user name with
 * different passphrases do not share a user table entry. After any SNMPv3 failure the engine ID is forgotten and
 * discovered again on the next poll (the agent may have been replaced). Failure reports are told apart
 * (usmStatsWrongDigests, usmStatsUnknownUserNames, ...); an agent sends the wrong-digest and decryption-error reports
 * without authentication, which RFC 3412 §7.2.11 lets a manager ignore and SNMP4J does, so the poller takes them
 * itself for its pending requests (an unauthenticated report can only make a poll fail sooner). A wrong privacy
 * passphrase cannot always be told: net-snmp drops what it cannot decrypt, and the poll times out.
 *
 * <p>Threads: one UDP socket (SNMP4J's {@link DefaultUdpTransportMapping}, bound to the wildcard address, IPv6 and
 * IPv4) with SNMP4J's receive thread and timer thread; {@link #poll} never blocks and its future completes on one of
 * those threads, so dependent stages that take time belong on an executor ({@code thenApplyAsync}). Thread-safe.
 *
 * <p>Counters ({@link #requests()}, {@link #timeouts()}, {@link #errors()}) count GET requests, not SNMP4J's
 * retransmissions.
 */
public final class SnmpPoller implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SnmpPoller.class);

    /** sysName.0 (SNMPv2-MIB, RFC 3418). */
    static final OID SYS_NAME = new OID("1.3.6.1.2.1.1.5.0");
    /** ifDescr (IF-MIB ifTable, RFC 2863). */
    static final OID IF_DESCR = new OID("1.3.6.1.2.1.2.2.1.2");
    /** ifName (IF-MIB ifXTable). */
    static final OID IF_NAME = new OID("1.3.6.1.2.1.31.1.1.1.1");
    /** ifAlias (IF-MIB ifXTable). */
    static final OID IF_ALIAS = new OID("1.3.6.1.2.1.31.1.1.1.18");
    /** ifHighSpeed (IF-MIB ifXTable), Mb/s. */
    static final OID IF_HIGH_SPEED = new OID("1.3.6.1.2.1.31.1.1.1.15");
    /** Variable bindings per interface in a request. */
    static final int OIDS_PER_INTERFACE = 4;
    /** Largest ifIndex (InterfaceIndex, RFC 2863: 1..2147483647). */
    static final long MAX_IF_INDEX = Integer.MAX_VALUE;
    /** Bound of the per-agent caches (remembered community, localised keys); cleared when reached. */
    static final int CACHE_LIMIT = 65_536;

    /**
     * Poller settings.
     *
     * @param timeoutMs time to wait for each answer before a retry, 1..60000 ms (Akvorado: 1 s)
     * @param retries retries after the first try, 0..10 (Akvorado: 1); a request takes at most
     *     timeoutMs × (retries + 1)
     * @param port agent UDP port when {@link #poll(InetAddress, SnmpCredentials, long[])} is given none, 1..65535
     * @param interfacesPerRequest interfaces per GET, 1..100 (4 variable bindings each; the first GET adds sysName)
     */
    public record Settings(int timeoutMs, int retries, int port, int interfacesPerRequest) {
        /** 1000 ms, 1 retry, port 161, 10 interfaces per request. */
        public static final Settings DEFAULTS = new Settings(1000, 1, 161, 10);

        /** @throws IllegalArgumentException naming the setting out of range and its range */
        public Settings {
            check("timeout", timeoutMs, 1, 60_000, " ms");
            check("retries", retries, 0, 10, "");
            check("port", port, 1, 65_535, "");
            check("interfaces per request", interfacesPerRequest, 1, 100, "");
        }

        private static void check(String what, int v, int min, int max, String unit) {
            if (v < min || v > max) {
                throw new IllegalArgumentException("SNMP " + what + " " + v + unit + " (need " + min + ".." + max
                        + unit + ")");
            }
        }
    }

    /**
     * One interface the agent has.
     *
     * @param ifIndex the ifIndex asked for
     * @param name ifName
     * @param description ifAlias, else ifDescr, when it differs from ifName; else empty
     * @param speedMbps ifHighSpeed, Mb/s (0 when the agent knows no speed)
     */
    public record InterfaceResult(long ifIndex, String name, String description, long speedMbps) {}

    /**
     * What one poll found.
     *
     * @param exporter the agent's address
     * @param sysName sysName.0, or empty when the agent has none
     * @param interfaces the interfaces found, in the order asked (each ifIndex once)
     * @param notFound the ifIndexes asked for that the agent does not have, in the order asked (each once)
     */
    public record Result(InetAddress exporter, String sysName, List<InterfaceResult> interfaces,
            List<Long> notFound) {
        /** Copies the lists. */
        public Result {
            interfaces = List.copyOf(interfaces);
            notFound = List.copyOf(notFound);
        }
    }

    private final Settings settings;
    private final DefaultUdpTransportMapping transport;
    private final Snmp snmp;
    private final MPv3 mpv3;
    private final USM usm;
    private final UsmKeys usmKeys = new UsmKeys();
    private final ConcurrentHashMap<Integer, Request> inFlight = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetSocketAddress, String> lastCommunity = new ConcurrentHashMap<>();
    private final LongAdder requests = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private volatile boolean closed;

    /**
     * Opens the UDP socket (an ephemeral port on the IPv6 wildcard address, else on 0.0.0.0 when the host has no
     * IPv6) and starts SNMP4J's receive thread.
     *
     * @param settings timeouts, retries, default port, batch size
     * @throws IOException if the socket cannot be opened
     */
    public SnmpPoller(Settings settings) throws IOException {
        this.settings = Objects.requireNonNull(settings, "settings");
        // Own protocol, security model and engine objects: nothing of SNMP4J's process-wide singletons is changed.
        SecurityProtocols protocols = usmKeys.protocols();
        byte[] id = new byte[8];
        new SecureRandom().nextBytes(id);
        OctetString localEngineId = new OctetString(MPv3.createLocalEngineID(new OctetString(id)));
        usm = new USM(protocols, localEngineId, 0);
        SecurityModels models = new SecurityModels();
        models.addSecurityModel(usm);
        mpv3 = new MPv3(localEngineId.getValue(), null, protocols, models, CounterSupport.getInstance());
        MessageDispatcherImpl dispatcher = new MessageDispatcherImpl();
        dispatcher.addMessageProcessingModel(new MPv2c());
        dispatcher.addMessageProcessingModel(mpv3);
        transport = openTransport();
        snmp = new Snmp(dispatcher, transport);
        Snmp.ReportHandler standard = snmp.getReportHandler();
        snmp.setReportHandler(new Snmp.ReportHandler() {
            @Override
            public <A extends Address> void processReport(PduHandle handle, CommandResponderEvent<A> event) {
                if (!takeReport(handle, event)) {
                    standard.processReport(handle, event);
                }
            }
        });
        try {
            snmp.listen();
        } catch (IOException | RuntimeException e) {
            snmp.close();
            throw e;
        }
    }

    private static DefaultUdpTransportMapping openTransport() throws IOException {
        try {
            return new DefaultUdpTransportMapping(new UdpAddress(InetAddress.getByName("::"), 0), false);
        } catch (SocketException e) {
            log.debug("no IPv6 wildcard socket ({}); SNMP over IPv4 only", e.toString());
            return new DefaultUdpTransportMapping(new UdpAddress(InetAddress.getByName("0.0.0.0"), 0), false);
        }
    }

    /** @return the settings */
    public Settings settings() {
        return settings;
    }

    /** @return the local UDP port requests leave from */
    public int localPort() {
        return transport.getListenAddress().getPort();
    }

    /**
     * Polls an agent on the configured port ({@link Settings#port()}).
     *
     * @see #poll(InetSocketAddress, SnmpCredentials, long[])
     */
    public CompletableFuture<Result> poll(InetAddress exporter, SnmpCredentials credentials, long[] ifIndexes) {
        return poll(new InetSocketAddress(Objects.requireNonNull(exporter, "exporter"), settings.port), credentials,
                ifIndexes);
    }

    /**
     * Starts polling one agent; returns at once.
     *
     * @param agent the agent's address and UDP port (resolved)
     * @param credentials how to authenticate
     * @param ifIndexes the interfaces wanted (duplicates are asked once; none = sysName only)
     * @return completes with the result, or exceptionally with an {@link SnmpException} (timeout, authentication,
     *     refusal, agent error, send failure, poller closed) that names the agent and the reason
     * @throws IllegalArgumentException if the agent address is unresolved or has port 0
     */
    public CompletableFuture<Result> poll(InetSocketAddress agent, SnmpCredentials credentials, long[] ifIndexes) {
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(ifIndexes, "ifIndexes");
        if (agent.isUnresolved() || agent.getPort() == 0) {
            throw new IllegalArgumentException("SNMP agent " + agent + " must be a resolved address with a port");
        }
        Poll p = new Poll(agent, credentials, ifIndexes);
        if (closed) {
            p.fail(SnmpException.Reason.CLOSED, "the poller is closed");
        } else {
            p.start();
        }
        return p.future;
    }

    /** @return GET requests sent (engine ID discoveries included; SNMP4J's retransmissions not) */
    public long requests() {
        return requests.sum();
    }

    /** @return requests that got no answer within timeout × (retries + 1) */
    public long timeouts() {
        return timeouts.sum();
    }

    /**
     * @return requests answered with an error status (tooBig answers the poller recovers from by splitting aside) or
     *     a failure report, answers that did not match the request, and requests that could not be sent
     */
    public long errors() {
        return errors.sum();
    }

    /** Fails the polls in progress with {@link SnmpException.Reason#CLOSED}, then closes the socket. Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (Request r : inFlight.values()) {
            if (r.settle()) {
                r.poll.fail(SnmpException.Reason.CLOSED, "the poller was closed");
            }
        }
        try {
            snmp.close();
        } catch (IOException e) {
            log.debug("closing the SNMP socket: {}", e.toString());
        }
    }

    /**
     * Handles the reports SNMP4J would drop or resend for the poller's own requests: any report answering an engine
     * ID discovery (the engine ID is then known: no second round trip), and the unauthenticated USM failure reports
     * answering an authenticated request.
     *
     * @return true when the report was taken
     */
    private boolean takeReport(PduHandle handle, CommandResponderEvent<?> event) {
        PDU pdu = event.getPDU();
        Request r = handle == null ? null : inFlight.get(handle.getTransactionID());
        if (r == null || pdu == null || pdu.size() == 0) {
            return false;
        }
        OID oid = pdu.get(0).getOid();
        if (r.discovery) {
            if (mpv3.getEngineID(r.target.getAddress()) == null || !r.settle()) {
                return false;
            }
            snmp.cancel(r.pdu, r);
            r.poll.answered(r, pdu, null);
            return true;
        }
        boolean unauthenticatedFailure = event.getSecurityLevel() == SecurityLevel.NOAUTH_NOPRIV
                && r.target.getSecurityLevel() != SecurityLevel.NOAUTH_NOPRIV
                && (SnmpConstants.usmStatsWrongDigests.equals(oid) || SnmpConstants.usmStatsDecryptionErrors.equals(oid)
                        || SnmpConstants.usmStatsUnsupportedSecLevels.equals(oid));
        if (!unauthenticatedFailure || !r.settle()) {
            return false;
        }
        snmp.cancel(r.pdu, r);
        r.poll.answered(r, pdu, null);
        return true;
    }

    /** One GET outstanding in SNMP4J; settled once (answer, timeout, taken report, close). */
    private final class Request implements ResponseListener {
        final Poll poll;
        final PDU pdu;
        final Target<UdpAddress> target;
        final boolean discovery;
        /** Interfaces asked in this request. */
        final int count;
        final boolean withSysName;
        final int id;
        private final AtomicBoolean settled = new AtomicBoolean();

        Request(Poll poll, PDU pdu, Target<UdpAddress> target, boolean discovery, int count, boolean withSysName) {
            this.poll = poll;
            this.pdu = pdu;
            this.target = target;
            this.discovery = discovery;
            this.count = count;
            this.withSysName = withSysName;
            int n;
            do {
                n = snmp.getNextRequestID();
            } while (n == 0 || inFlight.containsKey(n));
            this.id = n;
            pdu.setRequestID(new Integer32(n));
        }

        /** @return true for the one caller that settles this request (and removes it from the in-flight table) */
        boolean settle() {
            if (!settled.compareAndSet(false, true)) {
                return false;
            }
            inFlight.remove(id, this);
            return true;
        }

        @Override
        public <A extends Address> void onResponse(ResponseEvent<A> event) {
            snmp.cancel(event.getRequest(), this);
            if (settle()) {
                poll.answered(this, event.getResponse(), event.getError());
            }
        }
    }

    /**
     * The state of one poll. One request is outstanding at a time, and each step runs on the thread that settled the
     * previous request; the in-flight table's put (before a send) and remove (at settling) order the steps.
     */
    private final class Poll {
        final InetSocketAddress agent;
        final UdpAddress address;
        final SnmpCredentials credentials;
        final long[] asked;
        final long[] valid;
        final List<String> communities;
        final CompletableFuture<Result> future = new CompletableFuture<>();
        final List<InterfaceResult> found = new ArrayList<>();
        int community;
        Target<UdpAddress> target;
        int next;
        int perRequest = settings.interfacesPerRequest;
        boolean sysNameDone;
        String sysName = "";

        Poll(InetSocketAddress agent, SnmpCredentials credentials, long[] ifIndexes) {
            this.agent = agent;
            this.address = new UdpAddress(agent.getAddress(), agent.getPort());
            this.credentials = credentials;
            this.asked = ifIndexes.clone();
            Set<Long> seen = new HashSet<>();
            long[] v = new long[asked.length];
            int n = 0;
            for (long i : asked) {
                if (i >= 1 && i <= MAX_IF_INDEX && seen.add(i)) {
                    v[n++] = i;
                }
            }
            this.valid = Arrays.copyOf(v, n);
            List<String> order = new ArrayList<>(credentials.communities());
            String last = lastCommunity.get(agent);
            if (last != null && order.remove(last)) {
                order.addFirst(last);
            }
            this.communities = order;
        }

        void start() {
            if (!credentials.isV3()) {
                target = communityTarget(communities.get(0));
                sendBatch();
                return;
            }
            OctetString engineId = mpv3.getEngineID(address);
            if (engineId == null) {
                UserTarget<UdpAddress> t = new UserTarget<>();
                t.setAddress(address);
                t.setVersion(SnmpConstants.version3);
                t.setSecurityLevel(SecurityLevel.NOAUTH_NOPRIV);
                t.setSecurityName(new OctetString());
                timing(t);
                ScopedPDU pdu = new ScopedPDU();
                pdu.setType(PDU.GET);
                send(new Request(this, pdu, t, true, 0, false));
                return;
            }
            if (userTarget(engineId)) {
                sendBatch();
            }
        }

        private CommunityTarget<UdpAddress> communityTarget(String c) {
            CommunityTarget<UdpAddress> t = new CommunityTarget<>(address, new OctetString(c));
            t.setVersion(SnmpConstants.version2c);
            timing(t);
            return t;
        }

        private void timing(Target<UdpAddress> t) {
            t.setTimeout(settings.timeoutMs);
            t.setRetries(settings.retries);
        }

        /** @return false (and the poll failed) if the passphrases cannot be localised to the engine ID */
        private boolean userTarget(OctetString engineId) {
            SnmpCredentials c = credentials;
            UsmKeys.Keys k;
            try {
                k = usmKeys.localize(engineId, c);
            } catch (RuntimeException e) {
                errors.increment();
                fail(SnmpException.Reason.AUTHENTICATION, "cannot localise the passphrases of user \"" + c.user()
                        + "\" to engine ID " + engineId.toHexString() + ": " + e.getMessage());
                return false;
            }
            DirectUserTarget<UdpAddress> t = new DirectUserTarget<>(address,
                    new OctetString(c.user().getBytes(StandardCharsets.UTF_8)), engineId.getValue(), usmKeys.auth(c),
                    k.auth(), usmKeys.priv(c), k.priv());
            t.setVersion(SnmpConstants.version3);
            timing(t);
            target = t;
            return true;
        }

        void sendBatch() {
            int n = Math.min(perRequest, valid.length - next);
            boolean withSysName = !sysNameDone;
            PDU pdu = credentials.isV3() ? new ScopedPDU() : new PDU();
            pdu.setType(PDU.GET);
            if (withSysName) {
                pdu.add(new VariableBinding(SYS_NAME));
            }
            for (int j = 0; j < n; j++) {
                int i = (int) valid[next + j];
                pdu.add(new VariableBinding(new OID(IF_DESCR).append(i)));
                pdu.add(new VariableBinding(new OID(IF_NAME).append(i)));
                pdu.add(new VariableBinding(new OID(IF_ALIAS).append(i)));
                pdu.add(new VariableBinding(new OID(IF_HIGH_SPEED).append(i)));
            }
            send(new Request(this, pdu, target, false, n, withSysName));
        }

        private void send(Request r) {
            requests.increment();
            inFlight.put(r.id, r);
            if (closed) {
                if (r.settle()) {
                    fail(SnmpException.Reason.CLOSED, "the poller was closed");
                }
                return;
            }
            try {
                snmp.send(r.pdu, r.target, null, r);
            } catch (IOException | RuntimeException e) {
                if (r.settle()) {
                    errors.increment();
                    fail(SnmpException.Reason.SEND_FAILED, "cannot send: " + e);
                }
            }
        }

        /** One request settled: an answer, null for a timeout, or SNMP4J's error. */
        void answered(Request r, PDU response, Exception error) {
            if (error != null) {
                errors.increment();
                fail(SnmpException.Reason.SEND_FAILED, "SNMP4J: " + error);
            } else if (response == null) {
                timedOut(r);
            } else if (r.discovery) {
                OctetString engineId = mpv3.getEngineID(address);
                if (engineId == null || engineId.length() == 0) {
                    errors.increment();
                    fail(SnmpException.Reason.AGENT_ERROR, "the answer to the engine ID discovery (RFC 3414 §4) "
                            + "carries no engine ID");
                } else if (userTarget(engineId)) {
                    sendBatch();
                }
            } else if (response.getType() == PDU.REPORT) {
                errors.increment();
                report(response);
            } else if (response.getErrorStatus() != PDU.noError) {
                errorStatus(r, response);
            } else if (read(r, response)) {
                next += r.count;
                sysNameDone = true;
                if (!credentials.isV3()) {
                    remember(communities.get(community));
                }
                if (next < valid.length) {
                    sendBatch();
                } else {
                    complete();
                }
            }
        }

        private void timedOut(Request r) {
            timeouts.increment();
            String waited = "no answer within " + settings.timeoutMs + " ms × " + (settings.retries + 1) + " tries";
            if (!credentials.isV3()) {
                if (!sysNameDone && community + 1 < communities.size()) {
                    community++;
                    target = communityTarget(communities.get(community));
                    sendBatch();
                    return;
                }
                fail(SnmpException.Reason.TIMEOUT, waited + " (SNMPv2c, " + (sysNameDone ? "after " + next
                        + " interfaces)" : communities.size() + " communities tried)"));
                return;
            }
            forgetEngine();
            if (r.discovery) {
                fail(SnmpException.Reason.TIMEOUT, waited + " to the SNMPv3 engine ID discovery");
            } else {
                fail(SnmpException.Reason.TIMEOUT, waited + (credentials.privProtocol() == null ? ""
                        : " (an agent drops what it cannot decrypt: check the privacy passphrase and protocol)"));
            }
        }

        private void report(PDU response) {
            forgetEngine();
            OID oid = response.size() == 0 ? null : response.get(0).getOid();
            String user = "user \"" + credentials.user() + "\"";
            SnmpException.Reason a = SnmpException.Reason.AUTHENTICATION;
            if (SnmpConstants.usmStatsWrongDigests.equals(oid)) {
                fail(a, "wrong digest: the authentication passphrase or protocol (" + credentials.authProtocol()
                        + ") of " + user + " does not match the agent's (usmStatsWrongDigests)");
            } else if (SnmpConstants.usmStatsUnknownUserNames.equals(oid)) {
                fail(a, "the agent does not know " + user + " (usmStatsUnknownUserNames)");
            } else if (SnmpConstants.usmStatsDecryptionErrors.equals(oid)) {
                fail(a, "decryption error: the privacy passphrase or protocol (" + credentials.privProtocol()
                        + ") of " + user + " does not match the agent's (usmStatsDecryptionErrors)");
            } else if (SnmpConstants.usmStatsUnsupportedSecLevels.equals(oid)) {
                fail(a, "the agent does not support " + level() + " for " + user + " (usmStatsUnsupportedSecLevels)");
            } else if (SnmpConstants.usmStatsNotInTimeWindows.equals(oid)) {
                fail(a, "outside the agent's time window (usmStatsNotInTimeWindows)");
            } else if (SnmpConstants.usmStatsUnknownEngineIDs.equals(oid)) {
                fail(a, "the agent does not know the engine ID used (usmStatsUnknownEngineIDs)");
            } else {
                fail(SnmpException.Reason.AGENT_ERROR, "the agent answered with report " + oid);
            }
        }

        private void errorStatus(Request r, PDU response) {
            int status = response.getErrorStatus();
            if (status == PDU.tooBig && r.count > 1) {
                perRequest = Math.max(1, r.count / 2);
                log.debug("{}: tooBig for {} interfaces, asking {} per request", SnmpException.label(agent), r.count,
                        perRequest);
                sendBatch();
                return;
            }
            errors.increment();
            if (credentials.isV3()) {
                forgetEngine();
            }
            String text = PDU.toErrorStatusText(status) + " (error-status " + status + ", error-index "
                    + response.getErrorIndex() + ")";
            if (status == PDU.noAccess || status == PDU.authorizationError) {
                fail(SnmpException.Reason.REFUSED, "the agent refused the GET: " + text);
            } else {
                fail(SnmpException.Reason.AGENT_ERROR, "the agent answered " + text + " to a GET of "
                        + r.pdu.size() + " variable bindings");
            }
        }

        /** @return false (and the poll failed) when the answer's bindings do not match the request's */
        private boolean read(Request r, PDU response) {
            List<? extends VariableBinding> asked = r.pdu.getVariableBindings();
            List<? extends VariableBinding> got = response.getVariableBindings();
            if (got.size() != asked.size()) {
                errors.increment();
                fail(SnmpException.Reason.AGENT_ERROR, "the answer has " + got.size() + " variable bindings for "
                        + asked.size() + " asked");
                return false;
            }
            for (int i = 0; i < got.size(); i++) {
                if (!asked.get(i).getOid().equals(got.get(i).getOid())) {
                    errors.increment();
                    fail(SnmpException.Reason.AGENT_ERROR, "variable binding " + (i + 1) + " of the answer is "
                            + got.get(i).getOid() + ", asked " + asked.get(i).getOid());
                    return false;
                }
            }
            int at = 0;
            if (r.withSysName) {
                String s = text(got.get(0).getVariable());
                sysName = s == null ? "" : s;
                at = 1;
            }
            int first = next;
            for (int j = 0; j < r.count; j++, at += OIDS_PER_INTERFACE) {
                String descr = text(got.get(at).getVariable());
                String name = text(got.get(at + 1).getVariable());
                String alias = text(got.get(at + 2).getVariable());
                long speed = gauge(got.get(at + 3).getVariable());
                if (name == null || speed < 0) {
                    continue; // not found
                }
                String description = alias != null && !alias.isEmpty() && !alias.equals(name) ? alias
                        : descr != null && !descr.equals(name) ? descr : "";
                found.add(new InterfaceResult(valid[first + j], name, description, speed));
            }
            return true;
        }

        private void complete() {
            Set<Long> have = new HashSet<>();
            for (InterfaceResult i : found) {
                have.add(i.ifIndex());
            }
            List<Long> notFound = new ArrayList<>();
            Set<Long> listed = new HashSet<>();
            for (long i : asked) {
                if (!have.contains(i) && listed.add(i)) {
                    notFound.add(i);
                }
            }
            future.complete(new Result(agent.getAddress(), sysName, found, notFound));
        }

        void fail(SnmpException.Reason reason, String message) {
            String version = credentials.isV3() ? "SNMPv3 " + level() + " user \"" + credentials.user() + "\""
                    : "SNMPv2c";
            SnmpException e = new SnmpException(agent, reason, message + " [" + version + "]");
            log.debug("{}", e.getMessage());
            future.completeExceptionally(e);
        }

        private String level() {
            return switch (credentials.securityLevel()) {
                case NO_AUTH_NO_PRIV -> "noAuthNoPriv";
                case AUTH_NO_PRIV -> "authNoPriv";
                case AUTH_PRIV -> "authPriv";
            };
        }

        private void forgetEngine() {
            OctetString engineId = mpv3.removeEngineID(address);
            if (engineId != null) {
                usm.removeEngineTime(engineId);
            }
        }

        private void remember(String c) {
            if (!c.equals(lastCommunity.get(agent))) {
                if (lastCommunity.size() >= CACHE_LIMIT) {
                    lastCommunity.clear();
                }
                lastCommunity.put(agent, c);
            }
        }
    }

    /**
     * @return an OCTET STRING's text (UTF-8, malformed bytes replaced, trailing NULs some agents add removed), or null
     *     for any other value (noSuchInstance, noSuchObject, another type)
     */
    static String text(Variable v) {
        if (!(v instanceof OctetString os)) {
            return null;
        }
        byte[] b = os.getValue();
        int n = b.length;
        while (n > 0 && b[n - 1] == 0) {
            n--;
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    /** @return a Gauge32/Unsigned32 or non-negative Integer32 value, or -1 for anything else */
    static long gauge(Variable v) {
        if (v instanceof UnsignedInteger32 u) {
            return u.getValue();
        }
        if (v instanceof Integer32 i && i.getValue() >= 0) {
            return i.getValue();
        }
        return -1;
    }
}
