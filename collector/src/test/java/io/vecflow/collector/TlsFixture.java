package io.vecflow.collector;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for the TLS tests, made with the real tools an operator uses: {@code openssl} (a CA, a server
 * certificate for 127.0.0.1 / localhost, a client certificate, PKCS#8 keys, PKCS12 bundles) and {@code keytool}
 * (the PKCS12 trust stores). Each call makes a new CA, so a second fixture is a CA the first's clients do not trust.
 *
 * <pre>
 * dir/ca.pem ca.key                        the CA
 * dir/server.pem server.key server.p12     CN=localhost, SAN IP:127.0.0.1 DNS:localhost (serverAuth)
 * dir/client.pem client.key client.p12     CN=vecflow-collector (clientAuth)
 * dir/truststore.p12                       the CA, for Java servers and clients
 * </pre>
 *
 * Keys are mode 0600; the PKCS12 files and the trust store use {@link #PASSWORD}.
 */
public final class TlsFixture {
    /** Password of every PKCS12 file. */
    public static final String PASSWORD = "vecflow-test";

    public final Path dir;

    private TlsFixture(Path dir) {
        this.dir = dir;
    }

    /**
     * Makes the CA, server and client certificates in {@code dir}.
     *
     * @throws IOException a tool is missing (openssl, keytool) or failed, with its output
     */
    public static TlsFixture make(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        TlsFixture f = new TlsFixture(dir);
        f.run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                "-days", "3", "-subj", "/CN=vecflow test CA " + dir.getFileName());
        f.leaf("server", "/CN=localhost", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
        f.leaf("client", "/CN=vecflow-collector", "extendedKeyUsage=clientAuth\n");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        f.run(keytool, "-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "truststore.p12",
                "-storetype", "PKCS12", "-storepass", PASSWORD);
        return f;
    }

    private void leaf(String name, String subject, String ext) throws IOException, InterruptedException {
        Files.writeString(dir.resolve(name + ".ext"), ext);
        run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                "-subj", subject);
        run("openssl", "x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".pem", "-days", "3", "-extfile", name + ".ext");
        run("openssl", "pkcs12", "-export", "-in", name + ".pem", "-inkey", name + ".key", "-certfile", "ca.pem",
                "-name", name, "-out", name + ".p12", "-passout", "pass:" + PASSWORD);
        for (String f : List.of(name + ".key", name + ".p12")) {
            Files.setPosixFilePermissions(dir.resolve(f), PosixFilePermissions.fromString("rw-------"));
        }
    }

    public Path path(String file) {
        return dir.resolve(file);
    }

    private void run(String... cmd) throws IOException, InterruptedException {
        Path log = dir.resolve("tools.log");
        Process p = new ProcessBuilder(new ArrayList<>(List.of(cmd))).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " took more than 60 s");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): "
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
    }
}
