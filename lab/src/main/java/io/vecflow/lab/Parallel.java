package io.vecflow.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/** Runs independent simulation replications on a fixed pool of platform threads; results in submission order. */
public final class Parallel {
    private Parallel() {}

    /**
     * @param threads pool size (≥ 1)
     * @param tasks the replications
     * @return their results, in order
     * @throws IllegalStateException wrapping the first task failure
     */
    public static <T> List<T> run(int threads, List<Supplier<T>> tasks) {
        if (threads <= 1 || tasks.size() <= 1) {
            List<T> out = new ArrayList<>(tasks.size());
            for (Supplier<T> t : tasks) {
                out.add(t.get());
            }
            return out;
        }
        try (ExecutorService ex = Executors.newFixedThreadPool(threads)) {
            List<Future<T>> fs = new ArrayList<>(tasks.size());
            for (Supplier<T> t : tasks) {
                fs.add(ex.submit(t::get));
            }
            List<T> out = new ArrayList<>(tasks.size());
            for (Future<T> f : fs) {
                out.add(f.get());
            }
            return out;
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** @return the default pool size: the number of available processors */
    public static int defaultThreads() {
        return Runtime.getRuntime().availableProcessors();
    }
}
