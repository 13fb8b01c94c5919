import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Permission;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;

/**
 * Runs a compiled Java program on many tests in this one JVM, one after the other, inside the
 * judge's box (see linteval_ray/validate/judge/java_runner.py).
 *
 * Usage: JavaRunner PROGRAM_DIR MAIN_CLASS PLAN OUTPUT_BUDGET_BYTES OUTPUT_CAP_BYTES
 * PLAN: one test a line, tab-separated: name, input file, output file, CPU budget ms, wall budget ms.
 *
 * Each test gets a fresh class loader over PROGRAM_DIR (static state starts anew), its own
 * System.in (the input file), System.out (the output file) and System.err (counted, discarded),
 * built as the JDK builds them so the bytes that reach the output are the ones a fresh JVM writes
 * (a PrintStream over a 128-byte buffer, never flushed at exit). System.exit is caught by a
 * SecurityManager and becomes the test's exit status.
 *
 * On stdout, one line per test that ended normally ("done NAME CPU_NS WALL_NS SHA256": the digest lets
 * the judge tell its output file from one a later test rewrote); at the first test
 * that did not ("stop NAME REASON": exit status not 0, an uncaught exception or error, a budget
 * exceeded, output past the cap, a thread or process left running, output written after exit),
 * the JVM halts: that test and the later ones are judged by a fresh JVM each.
 */
public final class JavaRunner {
    private static final long STACK_BYTES = 64L << 20; // -Xss64m of a fresh JVM's main thread
    private static final long POLL_MS = 5;
    private static final int START_ATTEMPTS = 200;
    private static final long EXIT_GRACE_MS = 200; // threads must unwind this fast after System.exit

    private static volatile Test current;
    private static volatile boolean runnerExit;
    private static PrintStream report;

    public static void main(String[] args) throws Exception {
        report = System.out;
        Path programDir = Path.of(args[0]);
        String mainClass = args[1];
        List<String> plan = Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8);
        long[] budget = {Long.parseLong(args[3])};
        long cap = Long.parseLong(args[4]);
        System.setSecurityManager(new ExitTrap());
        URL[] classpath = {programDir.toUri().toURL()};
        for (String line : plan) {
            String[] f = line.split("\t");
            Test test = new Test(f[0], f[1], f[2], Long.parseLong(f[3]) * 1_000_000L, Long.parseLong(f[4]), cap, budget);
            String why = test.run(classpath, mainClass);
            if (why != null) {
                stop(test.name + " " + why);
            }
            report.println("done " + test.name + " " + test.cpuNs + " " + test.wallNs + " " + test.out.digest());
            report.flush();
            budget[0] -= test.out.count;
        }
        stop("end");
    }

    private static void stop(String line) {
        report.println("stop " + line);
        report.flush();
        runnerExit = true;
        Runtime.getRuntime().halt(0);
    }

    /** This JVM's kernel threads. */
    private static int tasks() {
        String[] names = new java.io.File("/proc/self/task").list();
        return names == null ? 0 : names.length;
    }

    private static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    }

    /** One test: its streams, its threads, how it ended. */
    private static final class Test {
        final String name;
        final String input;
        final String output;
        final long cpuBudgetNs;
        final long wallBudgetMs;
        final Counting out;
        final Counting err;
        final TestGroup group = new TestGroup(this);
        volatile Integer exitStatus;
        volatile long outAtExit;
        volatile String failure;
        long cpuNs;
        long wallNs;
        int tasksBefore;

        Test(String name, String input, String output, long cpuBudgetNs, long wallBudgetMs, long cap, long[] budget)
                throws IOException {
            this.name = name;
            this.input = input;
            this.output = output;
            this.cpuBudgetNs = cpuBudgetNs;
            this.wallBudgetMs = wallBudgetMs;
            this.out = new Counting(new FileOutputStream(output), Math.min(cap, budget[0]));
            this.err = new Counting(OutputStream.nullOutputStream(), cap);
        }

        /** Null when the test ended normally with exit status 0, else why not. */
        String run(URL[] classpath, String mainClass) throws Exception {
            PrintStream stdout = System.out, stderr = System.err;
            InputStream stdin = System.in;
            Properties properties = (Properties) System.getProperties().clone();
            Locale locale = Locale.getDefault();
            Locale display = Locale.getDefault(Locale.Category.DISPLAY);
            Locale format = Locale.getDefault(Locale.Category.FORMAT);
            TimeZone zone = TimeZone.getDefault();
            Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
            tasksBefore = tasks();
            long cpu0 = processCpuNs(), wall0 = System.nanoTime();
            try (InputStream in = new FileInputStream(input);
                 URLClassLoader loader = new URLClassLoader(classpath, ClassLoader.getPlatformClassLoader())) {
                System.setIn(new BufferedInputStream(in));
                System.setOut(new PrintStream(new BufferedOutputStream(out, 128), true));
                System.setErr(new PrintStream(new BufferedOutputStream(err, 128), true));
                current = this;
                Thread main = startMain(loader, mainClass);
                return main == null ? "cannot start the main thread" : watch(main, before, cpu0, wall0);
            } finally {
                cpuNs = processCpuNs() - cpu0;
                wallNs = System.nanoTime() - wall0;
                current = null;
                System.setIn(stdin);
                System.setOut(stdout);
                System.setErr(stderr);
                System.setProperties(properties);
                Locale.setDefault(locale);
                Locale.setDefault(Locale.Category.DISPLAY, display);
                Locale.setDefault(Locale.Category.FORMAT, format);
                TimeZone.setDefault(zone);
                Thread.setDefaultUncaughtExceptionHandler(null);
                out.close();
            }
        }

        /** The test's main thread, started; null if it cannot be. The previous test's thread may not
         * have left the kernel yet: until it has, glibc cannot reuse its 64 MiB stack, and a second
         * one may not fit RLIMIT_AS. */
        Thread startMain(ClassLoader loader, String mainClass) throws InterruptedException {
            for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
                Thread main = new Thread(group, () -> invokeMain(loader, mainClass), "main", STACK_BYTES);
                main.setContextClassLoader(loader);
                try {
                    main.start();
                    return main;
                } catch (OutOfMemoryError e) {
                    Thread.sleep(POLL_MS);
                }
            }
            return null;
        }

        void invokeMain(ClassLoader loader, String mainClass) {
            Method main;
            try {
                main = Class.forName(mainClass, false, loader).getMethod("main", String[].class);
            } catch (ReflectiveOperationException | LinkageError e) {
                failure = "no main: " + e;
                return;
            }
            if (!Modifier.isStatic(main.getModifiers())) {
                failure = "main is not static";
                return;
            }
            try {
                main.setAccessible(true); // a package-private class runs too, as with the launcher
                main.invoke(null, (Object) new String[0]);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (!(cause instanceof ExitRequest)) {
                    failure = "uncaught " + cause.getClass().getName();
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                failure = "cannot invoke main: " + e;
            } catch (ExitRequest e) {
                // System.exit inside a static initializer
            } catch (Throwable e) {
                failure = "uncaught " + e.getClass().getName();
            }
        }

        /** Waits for the test's threads as a JVM waits before exiting (every non-daemon thread),
         * within the budgets; null when it ended normally. */
        String watch(Thread main, Set<Thread> before, long cpu0, long wall0) throws InterruptedException {
            long exitSeen = -1;
            while (true) {
                Thread[] threads = new Thread[group.activeCount() + 8];
                int alive = group.enumerate(threads);
                boolean running = false;
                for (int i = 0; i < alive; i++) {
                    running |= !threads[i].isDaemon() || threads[i] == main;
                }
                if (failure != null) {
                    return failure.replace('\n', ' ');
                }
                if (exitStatus != null) {
                    exitSeen = exitSeen < 0 ? System.nanoTime() : exitSeen;
                    if (alive == 0) {
                        return ended(before);
                    }
                    if ((System.nanoTime() - exitSeen) / 1_000_000 > EXIT_GRACE_MS) {
                        return "threads still running after exit";
                    }
                } else if (!running) {
                    return ended(before);
                }
                if (processCpuNs() - cpu0 > cpuBudgetNs) {
                    return "cpu budget exceeded";
                }
                if ((System.nanoTime() - wall0) / 1_000_000 > wallBudgetMs) {
                    return "wall budget exceeded";
                }
                if (out.exceeded || err.exceeded) {
                    return "output cap exceeded";
                }
                if (main.isAlive()) {
                    main.join(POLL_MS);
                } else {
                    Thread.sleep(1);
                }
            }
        }

        String ended(Set<Thread> before) throws InterruptedException {
            Set<Thread> spawned = new HashSet<>(Thread.getAllStackTraces().keySet());
            spawned.removeAll(before);
            for (Thread t : spawned) {
                t.join(20); // a thread that ran to its end may still be leaving
                if (t.isAlive()) {
                    return "thread left running: " + t.getName();
                }
            }
            for (int i = 0; i < START_ATTEMPTS && tasks() > tasksBefore; i++) {
                Thread.sleep(1); // the test's threads leave the kernel (and free their stacks) a little after join
            }
            if (ProcessHandle.current().children().findAny().isPresent()) {
                return "process left running";
            }
            if (failure != null) {
                return failure.replace('\n', ' ');
            }
            if (out.exceeded || err.exceeded) {
                return "output cap exceeded";
            }
            if (exitStatus != null && exitStatus != 0) {
                return "exit " + exitStatus;
            }
            if (exitStatus != null && out.count != outAtExit) {
                return "output after exit";
            }
            return null;
        }
    }

    /** Every thread a test starts belongs here (threads inherit their creator's group). */
    private static final class TestGroup extends ThreadGroup {
        private final Test test;

        TestGroup(Test test) {
            super("main");
            this.test = test;
        }

        @Override
        public void uncaughtException(Thread t, Throwable e) {
            if (e instanceof ExitRequest) {
                return;
            }
            if (test.failure == null) {
                test.failure = "uncaught " + e.getClass().getName() + " in thread " + t.getName();
            }
            super.uncaughtException(t, e);
        }
    }

    /** An output stream counting its bytes, dropping those past the cap. */
    private static final class Counting extends OutputStream {
        private final OutputStream target;
        private final long cap;
        private final MessageDigest sha256;
        volatile long count;
        volatile boolean exceeded;

        Counting(OutputStream target, long cap) {
            this.target = target;
            this.cap = cap;
            try {
                this.sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        synchronized String digest() {
            return HexFormat.of().formatHex(sha256.digest());
        }

        @Override
        public synchronized void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (count + len > cap) {
                exceeded = true;
                return;
            }
            target.write(b, off, len);
            sha256.update(b, off, len);
            count += len;
        }

        @Override
        public void close() throws IOException {
            target.close();
        }
    }

    /** Thrown where System.exit would have ended the JVM: it unwinds the test's thread. */
    private static final class ExitRequest extends ThreadDeath {
        private static final long serialVersionUID = 1L;
    }

    /** Permits everything (the box is the isolation) except leaving the JVM and replacing this. */
    private static final class ExitTrap extends SecurityManager {
        @Override
        public void checkPermission(Permission perm) {
            if ("setSecurityManager".equals(perm.getName())) {
                throw new SecurityException("the judge's SecurityManager stays");
            }
        }

        @Override
        public void checkPermission(Permission perm, Object context) {
            checkPermission(perm);
        }

        @Override
        public void checkExit(int status) {
            Test test = current;
            if (runnerExit || test == null) {
                return;
            }
            synchronized (test) {
                if (test.exitStatus == null) {
                    test.outAtExit = test.out.count;
                    test.exitStatus = status;
                }
            }
            throw new ExitRequest();
        }
    }
}
