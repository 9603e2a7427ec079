package io.vecflow.fuzz;

import io.vecflow.sflow.ByteView;
import io.vecflow.sflow.SflowAddress;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Reads every field of the decoder's reusable holders ({@code DatagramHeader}, {@code FlowSample},
 * {@code CounterSample} and everything they hold) by reflection, so that the fuzz target touches each decoded value
 * and view — including records added to the holders later — and folds them into a fingerprint.
 *
 * <p>Which parts are live follows the holders' own convention: a field {@code foo} with a boolean sibling
 * {@code hasFoo} is read only when that flag is set (otherwise it holds stale values of an earlier sample), and of
 * {@code unknownBodies} only the first {@code min(unknownRecords, capacity)} views. Every live {@link ByteView} must
 * lie inside the datagram being decoded, in the array being decoded; each of its bytes is read (through
 * {@link ByteView#get}, so a view past its array faults). {@link SflowAddress} types must be 0, 1 or 2. The sample
 * field {@code offset} is folded in relative to the datagram, whichever convention the decoder uses (see
 * {@link #sampleOffset}), so that decoding the same bytes at another offset gives the same fingerprint.
 */
final class HolderWalker {
    private static final long MIX = 0x9E3779B97F4A7C15L;

    /** Non-static fields of a holder class, in name order, each with its {@code hasX} flag if it has one. */
    private record Slot(Field field, Field flag) {}

    private static final ClassValue<Slot[]> SLOTS = new ClassValue<>() {
        @Override
        protected Slot[] computeValue(Class<?> type) {
            List<Field> fields = new ArrayList<>();
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) { // the holder's own fields and its base's (RecordedSample)
                    if (!Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
                        f.setAccessible(true);
                        fields.add(f);
                    }
                }
            }
            fields.sort(Comparator.comparing(Field::getName));
            List<Slot> slots = new ArrayList<>();
            for (Field f : fields) {
                Field flag = null;
                String flagName = "has" + Character.toUpperCase(f.getName().charAt(0)) + f.getName().substring(1);
                for (Field g : fields) {
                    if (g.getName().equals(flagName) && g.getType() == boolean.class) {
                        flag = g;
                    }
                }
                slots.add(new Slot(f, flag));
            }
            return slots.toArray(Slot[]::new);
        }
    };

    /** The datagram being decoded: {@code data[off, off + len)}. */
    private byte[] data;
    private int off;
    private int len;
    /** Fingerprint of everything read since {@link #begin}. */
    long hash;

    void begin(byte[] data, int off, int len) {
        this.data = data;
        this.off = off;
        this.len = len;
        this.hash = 0;
    }

    void mix(long v) {
        hash = (hash + v) * MIX;
        hash ^= hash >>> 29;
    }

    /**
     * @return the datagram-relative offset of a sample: FlowSample/CounterSample document {@code offset} as "in the
     *     datagram"; the decoder may report it relative to {@code off} or as an index into the array, and the two
     *     cannot be confused here because the target decodes at {@code off = 0} and at an {@code off} larger than any
     *     input
     */
    int sampleOffset(int offset) {
        return offset >= off && off > 0 ? offset - off : offset;
    }

    /** Checks that a view lies inside the datagram and reads each of its bytes. */
    void view(String what, ByteView v) {
        if (v.array != data) {
            throw new AssertionError(what + ": live view points into another array than the datagram's");
        }
        if (v.length < 0 || v.offset < off || (long) v.offset + v.length > (long) off + len) {
            throw new AssertionError(what + ": view [" + (v.offset - off) + ", +" + v.length
                    + ") lies outside the datagram [0, " + len + ")");
        }
        long sum = 0;
        for (int i = 0; i < v.length; i++) {
            sum = sum * 31 + v.get(i);
        }
        mix(v.offset - off);
        mix(v.length);
        mix(sum);
    }

    /** Folds in every live field of a holder (recursively), checking views and addresses. */
    void walk(String path, Object holder) {
        if (holder instanceof ByteView v) {
            view(path, v);
            return;
        }
        if (holder instanceof SflowAddress a && a.type != 0 && a.type != 1 && a.type != 2) {
            throw new AssertionError(path + ": address type " + a.type + " is not 0, 1 or 2");
        }
        try {
            for (Slot slot : SLOTS.get(holder.getClass())) {
                if (slot.flag() != null && !slot.flag().getBoolean(holder)) {
                    continue; // stale: this record was not in the sample
                }
                Field f = slot.field();
                String name = path + "." + f.getName();
                Class<?> t = f.getType();
                if (t == long.class) {
                    mix(f.getLong(holder));
                } else if (t == int.class) {
                    int v = f.getInt(holder);
                    mix(f.getName().equals("offset") && !(holder instanceof ByteView) ? sampleOffset(v) : v);
                } else if (t == boolean.class) {
                    mix(f.getBoolean(holder) ? 1 : 0);
                } else if (t == short.class || t == byte.class || t == char.class || t == float.class
                        || t == double.class) {
                    mix(Double.doubleToLongBits(((Number) (t == char.class
                            ? (int) f.getChar(holder) : f.get(holder))).doubleValue()));
                } else if (t == byte[].class && f.getName().equals("buffer")) {
                    Object b = f.get(holder);
                    if (b != data) {
                        throw new AssertionError(name + " is not the datagram's array during the visitor call");
                    }
                } else if (t.isArray()) {
                    array(name, f.getName(), holder, f.get(holder));
                } else if (t.getPackageName().startsWith("io.vecflow.") && !t.isEnum()) {
                    Object child = f.get(holder);
                    if (child != null) {
                        walk(name, child);
                    }
                } else if (t.isEnum()) {
                    Object e = f.get(holder);
                    mix(e == null ? -1 : ((Enum<?>) e).ordinal());
                }
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private void array(String path, String fieldName, Object holder, Object array) throws IllegalAccessException {
        if (array instanceof long[] a) {
            for (long v : a) {
                mix(v);
            }
        } else if (array instanceof int[] a) {
            for (int v : a) {
                mix(v);
            }
        } else if (array instanceof byte[] a) {
            mix(Arrays.hashCode(a));
        } else if (array instanceof short[] a) {
            mix(Arrays.hashCode(a));
        } else if (array instanceof ByteView[] views) {
            int live = views.length;
            if (fieldName.equals("unknownBodies")) {
                live = Math.min(views.length, unknownRecords(holder));
            }
            for (int i = 0; i < live; i++) {
                if (fieldName.equals("unknownBodies") || views[i].array == data) {
                    view(path + "[" + i + "]", views[i]);
                }
            }
        } else if (array instanceof Object[] objects) {
            for (int i = 0; i < objects.length; i++) {
                if (objects[i] instanceof Enum<?> e) {
                    mix(e.ordinal());
                } else if (objects[i] != null && objects[i].getClass().getPackageName().startsWith("io.vecflow.")) {
                    walk(path + "[" + i + "]", objects[i]);
                }
            }
        }
    }

    private static int unknownRecords(Object holder) {
        try {
            return holder.getClass().getField("unknownRecords").getInt(holder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
