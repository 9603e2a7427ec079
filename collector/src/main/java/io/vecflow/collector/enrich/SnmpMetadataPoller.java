package io.vecflow.collector.enrich;

import io.vecflow.collector.enrich.snmp.SnmpCredentials;
import io.vecflow.collector.enrich.snmp.SnmpPoller;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code snmp} metadata source: the cache's {@link MetadataPoller} over an {@link SnmpPoller}, with the
 * configured credentials and the exporter → SNMP agent address map ({@code enrichment.metadata.snmp.agents}).
 */
final class SnmpMetadataPoller implements MetadataPoller {
    private final SnmpPoller poller;
    private final SnmpCredentials credentials;
    private final Map<InetAddress, InetAddress> agents = new HashMap<>();
    private final int port;

    SnmpMetadataPoller(EnrichmentSettings s) throws IOException {
        this.credentials = credentials(s);
        this.port = s.snmpPort;
        for (Map.Entry<String, String> e : s.snmpAgents.entrySet()) {
            agents.put(literal(e.getKey()), literal(e.getValue()));
        }
        this.poller = new SnmpPoller(new SnmpPoller.Settings(s.snmpTimeoutMs, s.snmpRetries, s.snmpPort,
                SnmpPoller.Settings.DEFAULTS.interfacesPerRequest()));
    }

    /**
     * @param s settings
     * @return the credentials they give (v3 when a user is set, else v2c)
     * @throws IllegalArgumentException naming a bad protocol name or passphrase
     */
    static SnmpCredentials credentials(EnrichmentSettings s) {
        return s.snmpUser.isBlank() ? SnmpCredentials.v2c(s.snmpCommunities)
                : SnmpCredentials.v3(s.snmpUser, s.snmpAuthProtocol, s.snmpAuthPassphrase, s.snmpPrivProtocol,
                        s.snmpPrivPassphrase);
    }

    private static InetAddress literal(String a) {
        if (!a.contains(":") && !a.matches("[0-9.]+")) {
            throw new IllegalArgumentException("snmp.agents: '" + a + "' is not an address literal");
        }
        try {
            return InetAddress.getByName(a);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("snmp.agents: '" + a + "' is not an address");
        }
    }

    @Override
    public CompletableFuture<Answer> poll(InetAddress exporter, long[] ifIndexes) {
        InetAddress agent = agents.getOrDefault(exporter, exporter);
        return poller.poll(new InetSocketAddress(agent, port), credentials, ifIndexes).thenApply(r -> {
            Map<Long, StaticExporter.Interface> found = new LinkedHashMap<>();
            for (SnmpPoller.InterfaceResult i : r.interfaces()) {
                found.put(i.ifIndex(), new StaticExporter.Interface(i.name(), i.description(), i.speedMbps(), "", "",
                        ""));
            }
            return new Answer(r.sysName(), found, r.notFound());
        });
    }

    @Override
    public void close() {
        poller.close();
    }
}
