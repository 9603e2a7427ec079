package io.vecflow.collector.enrich.geoip;

import static io.vecflow.collector.TestSupport.addr16;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The networks CSV: header in any order, quotes, errors naming file, line and column. */
class NetworksCsvTest {
    @TempDir
    Path dir;

    private Path csv(String text) throws IOException {
        Path f = dir.resolve("networks.csv");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void readsColumnsByHeaderWithQuotesCommentsAndBlankLines() throws IOException {
        Path f = csv("\uFEFF# our networks\n"
                + "Prefix, asn ,name,country,site\n"
                + "\n"
                + "10.0.0.0/8,,corp,,\n"
                + "192.0.2.0/24,AS64500,\"dc1, hall \"\"2\"\"\",fr,par1\n"
                + "  2001:db8::/32 , 64501 , v6 lab ,  , \n"
                + "198.51.100.7,,host,,\n");
        List<StaticNetwork> n = NetworksCsv.parse(f);
        assertThat(n).containsExactly(
                new StaticNetwork("10.0.0.0/8", "corp", "", "", "", "", "", 0, f + " line 4"),
                new StaticNetwork("192.0.2.0/24", "dc1, hall \"2\"", "", "par1", "", "", "FR", 64500, f + " line 5"),
                new StaticNetwork("2001:db8::/32", "v6 lab", "", "", "", "", "", 64501, f + " line 6"),
                new StaticNetwork("198.51.100.7", "host", "", "", "", "", "", 0, f + " line 7"));
        NetworkTable t = NetworkTableBuilder.build(List.of(), List.of(), n);
        assertThat(t.lookup(addr16("192.0.2.3"), 0).name().text).isEqualTo("dc1, hall \"2\"");
        assertThat(t.lookup(addr16("192.0.2.3"), 0).country().text).isEqualTo("FR");
        assertThat(t.lookup(addr16("198.51.100.7"), 0).name().text).isEqualTo("host");
        assertThat(t.lookup(addr16("198.51.100.8"), 0).name().text).isEmpty();
        assertThat(t.lookup(addr16("2001:db8::1"), 0).asn()).isEqualTo(64501);
    }

    @Test
    void allColumns() throws IOException {
        Path f = csv("tenant,region,site,role,name,prefix,country,asn\nt,r,s,ro,n,10.0.0.0/8,DE,1\n");
        assertThat(NetworksCsv.parse(f)).containsExactly(
                new StaticNetwork("10.0.0.0/8", "n", "ro", "s", "r", "t", "DE", 1, f + " line 2"));
    }

    @Test
    void errorsNameFileLineAndColumn() throws IOException {
        String[][] cases = {
            {"name,prefix\ncorp,10.0.0.1/8\n",
                "line 2 column 2 (prefix): '10.0.0.1/8': host bits set (the network is 10.0.0.0/8)"},
            {"prefix,asn\n10.0.0.0/8,AS-1\n",
                "line 2 column 2 (asn): 'AS-1' is not an AS number (0..4294967295, optionally after 'AS')"},
            {"prefix,asn\n10.0.0.0/8,4294967296\n", "line 2 column 2 (asn): '4294967296' is not an AS number"},
            {"prefix,name,country\n10.0.0.0/8,x,France\n",
                "line 2 column 3 (country): 'France' is not an ISO 3166-1 alpha-2 code (two letters)"},
            {"prefix,name\n10.0.0.0/8\n", "line 2: 1 fields, the header has 2"},
            {"prefix,name\n10.0.0.0/8,\"open\n", "line 2 column 2: unterminated quote (opened at character 12)"},
            {"prefix,name\n10.0.0.0/8,\"a\"b\n", "line 2 column 2: text after the closing quote"},
            {"prefix,name\n10.0.0.0/8,a\"b\n", "line 2 column 2: a quote inside an unquoted field"},
            {"prefix,colour\n", "line 1 column 2: unknown column 'colour' (known: prefix, name, role, site, "
                + "region, tenant, country, asn)"},
            {"prefix,name,Name\n", "line 1 column 3: column 'name' appears twice"},
            {"name,site\n", "line 1: the header has no 'prefix' column"},
            {"prefix,name\n10.0.0.0/33,x\n", "line 2 column 1 (prefix): '10.0.0.0/33': IPv4 prefix length 33 > 32"},
            {"prefix,name\nhost.example,x\n", "line 2 column 1 (prefix): 'host.example': 'host.example' is not"}};
        for (String[] c : cases) {
            Path f = csv(c[0]);
            assertThatThrownBy(() -> NetworksCsv.parse(f)).as(c[0]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(f + " " + c[1]);
        }
        Path f = csv("# only a comment\n\n");
        assertThatThrownBy(() -> NetworksCsv.parse(f)).hasMessageStartingWith(f + ": no header line");
        Path missing = dir.resolve("none.csv");
        assertThatThrownBy(() -> NetworksCsv.parse(missing)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("networks file " + missing + ": cannot be read");
        Path latin1 = dir.resolve("latin1.csv");
        Files.write(latin1, new byte[] {'p', 'r', 'e', 'f', 'i', 'x', ',', 'n', 'a', 'm', 'e', '\n', '1', '.', '2',
            '.', '3', '.', '4', ',', (byte) 0xE9, '\n'});
        assertThatThrownBy(() -> NetworksCsv.parse(latin1)).isInstanceOf(IOException.class)
                .hasMessage("networks file " + latin1 + ": not UTF-8 text");
    }
}
