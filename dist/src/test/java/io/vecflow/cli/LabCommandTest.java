package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code vecflow lab srlb|clove}: tiny runs write their files; bad options are usage errors naming the option. */
class LabCommandTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        CommandLine cl = VecflowCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void srlbWritesResults() throws Exception {
        Path out = dir.resolve("srlb");
        Run r = run("lab", "srlb", "--out", out.toString(), "--servers", "12", "--loads", "0.7,0.9", "--services",
                "exp", "--levels", "ps", "--dispatchers", "maglev,sr2", "--seeds", "2", "--jobs", "2000",
                "--sla-p90", "0");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("srlb ps exp sr2").contains("N=12");
        assertThat(r.out()).contains("wrote " + out.resolve("srlb.csv")).contains("summary:");
        assertThat(Files.readAllLines(out.resolve("srlb.csv"))).hasSize(1 + 4);
        assertThat(Files.readString(out.resolve("srlb.json")))
                .contains("\"command\" : \"vecflow lab srlb --out " + out);
        assertThat(out.resolve("srlb-mean-vs-load.png")).isNotEmptyFile();
    }

    @Test
    void cloveWritesResults() throws Exception {
        Path out = dir.resolve("clove");
        Run r = run("lab", "clove", "--out", out.toString(), "--loads", "0.5", "--fabrics", "asymmetric",
                "--workloads", "web-search", "--schemes", "ecmp,clove-ecn", "--seeds", "1", "--duration", "0.02",
                "-q");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(Files.readAllLines(out.resolve("clove.csv"))).hasSize(1 + 2);
        assertThat(out.resolve("clove-mean-fct-asymmetric-web-search.png")).isNotEmptyFile();
    }

    @Test
    void badOptionsAreUsageErrors() {
        Run r = run("lab", "srlb", "--out", dir.toString(), "--loads", "1.5");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--loads 1.5");
        r = run("lab", "clove", "--out", dir.toString(), "--schemes", "clove-ecn");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("ecmp");
        r = run("lab", "srlb", "--out", dir.toString(), "--dispatchers", "sr0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("dispatcher 'sr0'");
        assertThat(run("lab", "--help").out()).contains("srlb", "clove");
        assertThat(run("lab", "srlb", "--help").out()).contains("--quick", "--clickhouse", "--sla-p90");
    }
}
