package io.vecflow.fuzz;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Reads every instance field, or calls every public accessor, of a class through method handles adapted to
 * {@code (T)long}, so that the fuzz targets can touch and compare whole results without boxing on each input and
 * without listing fields by hand (classes under active development gain fields; the targets cover them as they come).
 * Booleans read as 0/1, enums as their ordinal (-1 for null), strings and arrays as their content hash.
 */
final class Snapshots<T> {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final MethodHandle BOOL = find("boolToLong", boolean.class);
    private static final MethodHandle OBJECT = find("objectToLong", Object.class);

    private final String[] names;
    private final MethodHandle[] handles;

    private Snapshots(Class<T> type, List<String> names, List<MethodHandle> handles) {
        this.names = names.toArray(String[]::new);
        this.handles = handles.toArray(MethodHandle[]::new);
        for (int i = 0; i < this.handles.length; i++) {
            this.handles[i] = this.handles[i].asType(MethodType.methodType(long.class, Object.class));
        }
    }

    /** Every non-static field of {@code type} (private ones included), in name order. */
    static <T> Snapshots<T> fields(Class<T> type) {
        List<Field> fields = new ArrayList<>();
        for (Field f : type.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
                f.setAccessible(true);
                fields.add(f);
            }
        }
        fields.sort(Comparator.comparing(Field::getName));
        List<String> names = new ArrayList<>();
        List<MethodHandle> handles = new ArrayList<>();
        for (Field f : fields) {
            try {
                names.add(f.getName());
                handles.add(toLong(LOOKUP.unreflectGetter(f)));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return new Snapshots<>(type, names, handles);
    }

    /** Every public instance method of {@code type} itself without parameters (except those in {@code skip}). */
    static <T> Snapshots<T> accessors(Class<T> type, String... skip) {
        List<Method> methods = new ArrayList<>();
        for (Method m : type.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())
                    && m.getParameterCount() == 0 && m.getReturnType() != void.class
                    && !Arrays.asList(skip).contains(m.getName())) {
                methods.add(m);
            }
        }
        methods.sort(Comparator.comparing(Method::getName));
        List<String> names = new ArrayList<>();
        List<MethodHandle> handles = new ArrayList<>();
        for (Method m : methods) {
            try {
                names.add(m.getName() + "()");
                handles.add(toLong(LOOKUP.unreflect(m)));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return new Snapshots<>(type, names, handles);
    }

    int size() {
        return handles.length;
    }

    String name(int i) {
        return names[i];
    }

    /** Reads every value of {@code t} into {@code out} (length {@link #size()}); allocates only for strings. */
    void read(T t, long[] out) throws Throwable {
        for (int i = 0; i < handles.length; i++) {
            out[i] = (long) handles[i].invokeExact((Object) t);
        }
    }

    /** @return the index of the first value that differs, or -1 */
    static int firstDifference(long[] a, long[] b) {
        return Arrays.mismatch(a, b);
    }

    private static MethodHandle toLong(MethodHandle h) {
        Class<?> r = h.type().returnType();
        if (r == long.class) {
            return h;
        }
        if (r == int.class || r == short.class || r == byte.class || r == char.class) {
            return MethodHandles.explicitCastArguments(h, h.type().changeReturnType(long.class));
        }
        if (r == boolean.class) {
            return MethodHandles.filterReturnValue(h, BOOL);
        }
        if (r == float.class || r == double.class) {
            return MethodHandles.filterReturnValue(
                    MethodHandles.explicitCastArguments(h, h.type().changeReturnType(double.class)),
                    findStatic("doubleToLong", double.class));
        }
        return MethodHandles.filterReturnValue(h.asType(h.type().changeReturnType(Object.class)), OBJECT);
    }

    private static long boolToLong(boolean b) {
        return b ? 1 : 0;
    }

    private static long doubleToLong(double d) {
        return Double.doubleToLongBits(d);
    }

    private static long objectToLong(Object o) {
        if (o == null) {
            return -1;
        }
        if (o instanceof Enum<?> e) {
            return e.ordinal();
        }
        if (o instanceof long[] a) {
            return Arrays.hashCode(a);
        }
        if (o instanceof int[] a) {
            return Arrays.hashCode(a);
        }
        if (o instanceof byte[] a) {
            return Arrays.hashCode(a);
        }
        if (o instanceof short[] a) {
            return Arrays.hashCode(a);
        }
        if (o instanceof boolean[] a) {
            return Arrays.hashCode(a);
        }
        if (o instanceof Object[] a) {
            long h = 1;
            for (Object x : a) {
                h = 31 * h + objectToLong(x);
            }
            return h;
        }
        return Objects.hashCode(o.toString()) & 0xFFFFFFFFL;
    }

    private static MethodHandle find(String name, Class<?> param) {
        return findStatic(name, param);
    }

    private static MethodHandle findStatic(String name, Class<?> param) {
        try {
            return LOOKUP.findStatic(Snapshots.class, name, MethodType.methodType(long.class, param));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
