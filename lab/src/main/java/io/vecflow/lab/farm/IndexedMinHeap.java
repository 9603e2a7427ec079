package io.vecflow.lab.farm;

import java.util.Arrays;

/**
 * A binary min-heap over the fixed item set {0, …, n−1}, each with a double key (a server's next completion
 * time), supporting key changes in O(log n). Allocation-free after construction. Not thread-safe.
 */
final class IndexedMinHeap {
    private final int[] heap; // position -> item
    private final int[] pos; // item -> position
    private final double[] key; // item -> key

    /** All {@code n} items start with key +∞. */
    IndexedMinHeap(int n) {
        heap = new int[n];
        pos = new int[n];
        key = new double[n];
        Arrays.fill(key, Double.POSITIVE_INFINITY);
        for (int i = 0; i < n; i++) {
            heap[i] = i;
            pos[i] = i;
        }
    }

    /** @return the item with the smallest key */
    int min() {
        return heap[0];
    }

    /** @return the smallest key */
    double minKey() {
        return key[heap[0]];
    }

    /** Sets item {@code i}'s key and restores the heap order. */
    void update(int i, double k) {
        double old = key[i];
        key[i] = k;
        if (k < old) {
            up(pos[i]);
        } else if (k > old) {
            down(pos[i]);
        }
    }

    private void up(int p) {
        int item = heap[p];
        double k = key[item];
        while (p > 0) {
            int q = (p - 1) >>> 1;
            if (key[heap[q]] <= k) {
                break;
            }
            heap[p] = heap[q];
            pos[heap[p]] = p;
            p = q;
        }
        heap[p] = item;
        pos[item] = p;
    }

    private void down(int p) {
        int n = heap.length;
        int item = heap[p];
        double k = key[item];
        while (true) {
            int c = 2 * p + 1;
            if (c >= n) {
                break;
            }
            if (c + 1 < n && key[heap[c + 1]] < key[heap[c]]) {
                c++;
            }
            if (key[heap[c]] >= k) {
                break;
            }
            heap[p] = heap[c];
            pos[heap[p]] = p;
            p = c;
        }
        heap[p] = item;
        pos[item] = p;
    }
}
