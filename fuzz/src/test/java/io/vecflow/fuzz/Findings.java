package io.vecflow.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * Names the input in a finding's message (libFuzzer saves a finding as {@code crash-<sha1 of the input>}), and saves
 * allocation findings made in regression mode: the exact allocation caps apply only there (see {@link Alloc}), so an
 * input of the corpus the fuzzer grew ({@code .cifuzz-corpus}) that exceeds one is written next to the seeds as
 * {@code crash-<sha1>}, as libFuzzer does for findings made while fuzzing, and becomes a regression input. At most
 * one per JVM is saved (one per target and run), so that a known allocation bug does not copy half the corpus.
 */
final class Findings {
    private static final AtomicBoolean SAVED = new AtomicBoolean();

    private Findings() {}

    /** A fuzz target body. */
    @FunctionalInterface
    interface Body {
        void run() throws Throwable;
    }

    /**
     * Runs {@code body} for {@code input} of {@code target}'s fuzz test {@code method}; see the class comment. An
     * {@link AssertionError} gets the input's length and SHA-1 (and hex, if short) appended to its message.
     */
    static void run(Class<?> target, String method, byte[] input, Body body) throws Throwable {
        try {
            body.run();
        } catch (Throwable t) {
            String sha1 = sha1(input);
            String saved = !Alloc.FUZZING && t instanceof Alloc.CapExceeded ? save(target, method, input, sha1) : "";
            if (!(t instanceof AssertionError)) {
                throw t;
            }
            String message = t.getMessage() + " [input: " + input.length + " bytes, sha1 "
                    + sha1 + (input.length <= 64 ? ", hex " + HexFormat.of().formatHex(input) : "") + saved + "]";
            AssertionError named = t instanceof Alloc.CapExceeded ? new Alloc.CapExceeded(message)
                    : new AssertionError(message, t.getCause());
            named.setStackTrace(t.getStackTrace());
            throw named;
        }
    }

    private static String save(Class<?> target, String method, byte[] input, String sha1) {
        Path dir = SeedCorpus.RESOURCES.resolve(target.getSimpleName() + "Inputs").resolve(method);
        if (!Files.isDirectory(dir)) {
            return "";
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                if (Files.size(f) == input.length && Arrays.equals(Files.readAllBytes(f), input)) {
                    return ", in " + f;
                }
            }
            if (!SAVED.compareAndSet(false, true)) {
                return ", not saved: another input was saved in this run";
            }
            Path f = dir.resolve("crash-" + sha1);
            Files.write(f, input);
            return ", saved as " + f;
        } catch (IOException e) {
            return ", not saved: " + e;
        }
    }

    static String sha1(byte[] input) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(input));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
