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
import java.security.CodeSource;
import java.security.Permission;
import java.security.Policy;
import java.security.ProtectionDomain;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.PropertyPermission;
import java.util.Set;
import java.util.TimeZone;

/**
 * Runs a compiled Java program on many tests in this one JVM, one after the other, inside the
 * judge's box (see linteval_ray/validate/judge/java_runner.py).
 *
 * Usage: JavaRunner PROGRAM_DIR MAIN_CLASS PLAN OUTPUT_BUDGET_BYTES OUTPUT_CAP_BYTES
 * PLAN: one test a line, tab-separated: name, input file, output file, CPU budget ms, wall budget ms.
 *
 * Each test's main runs on this JVM's own main thread (the launcher gave it the -Xss stack a
 * fresh JVM's main has, and no second 64 MiB stack takes address space), with a fresh class
 * loader over PROGRAM_DIR (static state starts anew), its own System.in (the input file),
 * System.out (the output file) and System.err (counted, discarded), built as the JDK builds them
 * so the bytes that reach the output are the ones a fresh JVM writes (a PrintStream over a
 * 128-byte buffer, never flushed at exit). System.exit is caught by a SecurityManager and becomes
 * the test's exit status. A watchdog thread with a small stack enforces the budgets.
 *
 * The program's classes (code source PROGRAM_DIR) hold no permission but reading and setting
 * system properties (ProgramPolicy): no file, descriptor, process, reflection past access checks,
 * class loader, stream redirection or thread of the judge is theirs, so nothing it does can reach
 * this runner's report (its stdout) or another test's output. A denied action throws, the test
 * does not end normally, and the fresh-JVM path judges it.
 *
 * On stdout, one line per test that ended normally ("done NAME CPU_NS WALL_NS SHA256": the digest
 * lets the judge tell its output file from one a later test rewrote); at the first test that did
 * not ("stop NAME REASON": exit status not 0, an uncaught exception or error in main, a budget
 * exceeded, output past the cap, a thread or process left running, output written after exit),
 * the JVM halts: that test and the later ones are judged by a fresh JVM each.
 */
public final class JavaRunner {
    private static final long POLL_MS = 5;
    private static final int SETTLE_ATTEMPTS = 200;
    private static final long EXIT_GRACE_MS = 200; // threads must unwind this fast after System.exit
    private static final long WATCHDOG_STACK_BYTES = 256 << 10;

    private static volatile Test current;
    private static volatile boolean runnerExit;
    private static PrintStream report;
    private static Thread watchdog;

    public static void main(String[] args) throws Exception {
        report = System.out;
        Path programDir = Path.of(args[0]);
        String mainClass = args[1];
        List<String> plan = Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8);
        long budget = Long.parseLong(args[3]);
        long cap = Long.parseLong(args[4]);
        URL[] classpath = {programDir.toUri().toURL()};
        processCpuNs(); // load what the watchdog uses before any test
        Policy.setPolicy(new ProgramPolicy(classpath[0]));
        System.setSecurityManager(new ExitTrap());
        Thread guard = new Thread(null, JavaRunner::watch, "judge-watchdog", WATCHDOG_STACK_BYTES);
        guard.setDaemon(true);
        guard.start();
        watchdog = guard; // from here on, only the watchdog itself may touch it
        for (String line : plan) {
            String[] f = line.split("\t");
            Test test = new Test(f[0], f[1], f[2], Long.parseLong(f[3]) * 1_000_000L, Long.parseLong(f[4]),
                                 Math.min(cap, budget), cap);
            String why = test.run(classpath, mainClass);
            synchronized (JavaRunner.class) {
                current = null;
                if (why != null) {
                    stop(test.name + " " + why);
                }
                report.println("done " + test.name + " " + test.cpuNs + " " + test.wallNs + " " + test.out.digest());
                report.flush();
            }
            budget -= test.out.count;
        }
        stop("end");
    }

    /** Halts the JVM (the caller holds the class lock, so no "done" line follows). */
    private static void stop(String line) {
        report.println("stop " + line);
        report.flush();
        runnerExit = true;
        Runtime.getRuntime().halt(0);
    }

    /** The watchdog: halts the JVM when the running test exceeds a budget. */
    private static void watch() {
        while (true) {
            Test test = current;
            String why = test == null ? null : test.overBudget();
            if (why != null) {
                synchronized (JavaRunner.class) {
                    if (current == test) {
                        stop(test.name + " " + why);
                    }
                }
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                // only the JVM's end stops the watchdog
            }
        }
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

    /** Every live thread of this JVM (without stack traces: cheap to poll). */
    private static Set<Thread> liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n = root.enumerate(threads, true);
        return new HashSet<>(Arrays.asList(threads).subList(0, n));
    }

    /** One test: its streams, its threads, how it ended. */
    private static final class Test {
        final String name;
        final String input;
        final long cpuBudgetNs;
        final long wallBudgetMs;
        final Counting out;
        final Counting err;
        volatile Integer exitStatus;
        volatile long exitAtNs;
        volatile long outAtExit;
        volatile long cpu0;
        volatile long wall0;
        long cpuNs;
        long wallNs;

        Test(String name, String input, String output, long cpuBudgetNs, long wallBudgetMs, long outCap, long errCap)
                throws IOException {
            this.name = name;
            this.input = input;
            this.cpuBudgetNs = cpuBudgetNs;
            this.wallBudgetMs = wallBudgetMs;
            this.out = new Counting(new FileOutputStream(output), outCap);
            this.err = new Counting(OutputStream.nullOutputStream(), errCap);
        }

        /** Null when the test ended normally with exit status 0, else why not. */
        String run(URL[] classpath, String mainClass) throws Exception {
            Thread self = Thread.currentThread();
            PrintStream stdout = System.out, stderr = System.err;
            InputStream stdin = System.in;
            Properties properties = (Properties) System.getProperties().clone();
            Locale locale = Locale.getDefault();
            Locale display = Locale.getDefault(Locale.Category.DISPLAY);
            Locale format = Locale.getDefault(Locale.Category.FORMAT);
            TimeZone zone = TimeZone.getDefault();
            ClassLoader context = self.getContextClassLoader();
            Set<Thread> before = liveThreads();
            int tasksBefore = tasks();
            cpu0 = processCpuNs();
            wall0 = System.nanoTime();
            try (InputStream in = new FileInputStream(input);
                 URLClassLoader loader = new URLClassLoader(classpath, ClassLoader.getPlatformClassLoader())) {
                System.setIn(new BufferedInputStream(in));
                System.setOut(new PrintStream(new BufferedOutputStream(out, 128), true));
                System.setErr(new PrintStream(new BufferedOutputStream(err, 128), true));
                self.setContextClassLoader(loader);
                current = this;
                String failure = invokeMain(loader, mainClass);
                return failure != null ? failure : ended(before, tasksBefore);
            } finally {
                cpuNs = processCpuNs() - cpu0;
                wallNs = System.nanoTime() - wall0;
                System.setIn(stdin);
                System.setOut(stdout);
                System.setErr(stderr);
                System.setProperties(properties);
                Locale.setDefault(locale);
                Locale.setDefault(Locale.Category.DISPLAY, display);
                Locale.setDefault(Locale.Category.FORMAT, format);
                TimeZone.setDefault(zone);
                Thread.setDefaultUncaughtExceptionHandler(null);
                self.setContextClassLoader(context);
                out.close();
            }
        }

        /** Null when main returned or called System.exit, else why it did not. */
        String invokeMain(ClassLoader loader, String mainClass) {
            Method main;
            try {
                main = Class.forName(mainClass, false, loader).getMethod("main", String[].class);
            } catch (ReflectiveOperationException | LinkageError e) {
                return "no main: " + e.getClass().getName();
            }
            if (!Modifier.isStatic(main.getModifiers())) {
                return "main is not static";
            }
            try {
                main.setAccessible(true); // a package-private class runs too, as with the launcher
                main.invoke(null, (Object) new String[0]);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (!(cause instanceof ExitRequest)) {
                    return "uncaught " + cause.getClass().getName();
                }
            } catch (ExitRequest e) {
                // System.exit inside a static initializer
            } catch (Throwable e) {
                return "cannot invoke main: " + e.getClass().getName();
            }
            return null;
        }

        /** After main: wait, as a JVM waits before exiting, for every non-daemon thread the test
         * started (unless it called System.exit); then nothing of it may be left. */
        String ended(Set<Thread> before, int tasksBefore) throws InterruptedException {
            while (exitStatus == null) {
                Thread waitFor = null;
                for (Thread t : liveThreads()) {
                    if (!before.contains(t) && !t.isDaemon()) {
                        waitFor = t;
                    }
                }
                if (waitFor == null) {
                    break;
                }
                waitFor.join();
            }
            for (Thread t : liveThreads()) {
                if (!before.contains(t)) {
                    t.join(20); // a thread that ran to its end may still be leaving
                    if (t.isAlive()) {
                        return "thread left running: " + t.getName();
                    }
                }
            }
            for (int i = 0; i < SETTLE_ATTEMPTS && tasks() > tasksBefore; i++) {
                Thread.sleep(1); // ended threads leave the kernel, and free their stacks, a little after join
            }
            if (ProcessHandle.current().children().findAny().isPresent()) {
                return "process left running";
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

        /** Checked by the watchdog while the test runs; null while within budgets. */
        String overBudget() {
            if (processCpuNs() - cpu0 > cpuBudgetNs) {
                return "cpu budget exceeded";
            }
            if ((System.nanoTime() - wall0) / 1_000_000 > wallBudgetMs) {
                return "wall budget exceeded";
            }
            if (out.exceeded || err.exceeded) {
                return "output cap exceeded";
            }
            if (exitStatus != null && (System.nanoTime() - exitAtNs) / 1_000_000 > EXIT_GRACE_MS) {
                return "still running after exit";
            }
            return null;
        }
    }

    /** An output stream counting and hashing its bytes, dropping those past the cap. */
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

    /** Thrown where System.exit would have ended the JVM: it unwinds the calling thread
     * (a ThreadDeath: an uncaught one ends a thread silently). */
    private static final class ExitRequest extends ThreadDeath {
        private static final long serialVersionUID = 1L;
    }

    /** The program's classes may read and set system properties, nothing else; all other code
     * (the JDK's, this runner's) may do anything. */
    private static final class ProgramPolicy extends Policy {
        private final String program;

        ProgramPolicy(URL program) {
            this.program = program.toString();
        }

        @Override
        public boolean implies(ProtectionDomain domain, Permission permission) {
            CodeSource source = domain.getCodeSource();
            boolean isProgram = source != null && source.getLocation() != null
                && program.equals(source.getLocation().toString());
            return !isProgram || permission instanceof PropertyPermission;
        }
    }

    /** The policy's checks (stack inspection: any frame of the program denies), System.exit
     * turned into the test's exit status, and the judge's SecurityManager and watchdog left alone. */
    private static final class ExitTrap extends SecurityManager {
        @Override
        public void checkPermission(Permission perm) {
            if ("setSecurityManager".equals(perm.getName())) {
                throw new SecurityException("the judge's SecurityManager stays");
            }
            super.checkPermission(perm);
        }

        @Override
        public void checkPermission(Permission perm, Object context) {
            if ("setSecurityManager".equals(perm.getName())) {
                throw new SecurityException("the judge's SecurityManager stays");
            }
            super.checkPermission(perm, context);
        }

        @Override
        public void checkAccess(Thread thread) {
            if (thread == watchdog && Thread.currentThread() != watchdog) {
                throw new SecurityException("the judge's watchdog is not the program's");
            }
            super.checkAccess(thread);
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
                    test.exitAtNs = System.nanoTime();
                    test.exitStatus = status;
                }
            }
            throw new ExitRequest();
        }
    }
}
