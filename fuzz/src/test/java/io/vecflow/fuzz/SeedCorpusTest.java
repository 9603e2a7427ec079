package io.vecflow.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The committed seed corpora (src/test/resources/io/vecflow/fuzz/*Inputs/) still hold what {@link SeedCorpus}
 * extracts from testdata/. Run with {@code -Dvecflow.fuzz.writeSeeds=true} to (re)write them instead; files the
 * extraction does not produce (findings saved by Jazzer, hand-added seeds) are never touched.
 */
class SeedCorpusTest {
    private static final boolean WRITE = Boolean.getBoolean("vecflow.fuzz.writeSeeds");

    @Test
    void sflowDecoderSeeds() throws IOException {
        check(SeedCorpus.SFLOW_DIR, SeedCorpus.sflowSeeds(), 40);
    }

    @Test
    void packetParserSeeds() throws IOException {
        check(SeedCorpus.PACKET_DIR, SeedCorpus.packetSeeds(), 60);
    }

    @Test
    void pcapReaderSeeds() throws IOException {
        check(SeedCorpus.PCAP_DIR, SeedCorpus.pcapSeeds(), 30);
    }

    @Test
    void netlinkCodecSeeds() throws IOException {
        check(SeedCorpus.NETLINK_DIR, SeedCorpus.netlinkSeeds(), 7);
    }

    @Test
    void configSeeds() throws IOException {
        check(SeedCorpus.CONFIG_DIR, SeedCorpus.configSeeds(), 10);
    }

    private static void check(Path dir, Map<String, byte[]> seeds, int atLeast) throws IOException {
        assertThat(seeds.size()).as("seeds extracted from testdata").isGreaterThanOrEqualTo(atLeast);
        if (WRITE) {
            Files.createDirectories(dir);
            for (Map.Entry<String, byte[]> e : seeds.entrySet()) {
                Files.write(dir.resolve(e.getKey()), e.getValue());
            }
        }
        for (Map.Entry<String, byte[]> e : seeds.entrySet()) {
            Path f = dir.resolve(e.getKey());
            assertThat(f).as("seed %s (regenerate with -Dvecflow.fuzz.writeSeeds=true, see fuzz/README.md)", f)
                    .exists();
            assertThat(Files.readAllBytes(f)).as("seed %s", f).isEqualTo(e.getValue());
        }
    }
}
