import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Permission;
import java.security.Policy;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.PropertyPermission;
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
 * class loader, stream redirection or thread of the judge is theirs. A denied action throws, the
 * test does not end normally, and the fresh-JVM path judges it.
 *
 * A test's window (watched by the watchdog, and what its figures measure) runs from its start until
 * its report line is written: after main, the threads it started are waited for (as a JVM waits)
 * and must all be gone (threads are told apart by their JVM ids, never by the program's own equals
 * or hashCode), every global it may have changed is restored (only what changed: nothing the
 * program could lock is touched otherwise), and only then is its output sealed and are its CPU and
 * wall time taken. So no program code runs outside its own test's window: a write to a sealed
 * output, a thread that appears between tests, or a runner thread that dies (the watchdog included,
 * e.g. of an OutOfMemoryError) ends the runner with "abort", and the judge then runs the whole
 * revision in fresh JVMs.
 *
 * The report goes to file descriptor 1 through a stream of this runner's own (System.out is a
 * discarding stream between tests): no program object reaches it and no lock guards it. Lines:
 * "start CPU_NS" (this JVM's CPU before the first test); per test that ended normally "done NAME
 * CPU_NS WALL_NS SHA256" (the digest lets the judge tell its output file from one rewritten later);
 * then one of "end", "stop NAME REASON" (that test did not end normally, or a global it changed
 * cannot be restored before NAME: NAME and the later tests are judged by a fresh JVM each) or
 * "abort REASON" (nothing of this run is kept). The JVM halts right after it.
 */
public final class JavaRunner {
    private static final long POLL_MS = 5;
    private static final int SETTLE_ATTEMPTS = 200;
    private static final long EXIT_GRACE_MS = 200; // threads must unwind this fast after System.exit
    private static final long LEAVING_MS = 20; // a thread that ran to its end may still be leaving
    private static final long WATCHDOG_STACK_BYTES = 256 << 10;
    // Written without allocating: the runner may be out of heap when it needs them.
    private static final byte[] WATCHDOG_DIED = line("abort watchdog died");
    private static final byte[] RUNNER_FAILED = line("abort runner failed");
    private static final byte[] LATE_WRITE = line("abort output written after its test");
    private static final byte[] THREAD_BETWEEN_TESTS = line("abort thread started outside a test");

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static volatile Test current;
    private static volatile boolean runnerExit;
    private static FileOutputStream report;
    private static Thread watchdog;

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            abort(RUNNER_FAILED);
        }
    }

    private static void run(String[] args) throws Exception {
        report = new FileOutputStream(FileDescriptor.out);
        Path programDir = Path.of(args[0]);
        String mainClass = args[1];
        List<String> plan = Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8);
        long budget = Long.parseLong(args[3]);
        long cap = Long.parseLong(args[4]);
        URL[] classpath = {programDir.toUri().toURL()};
        Globals globals = new Globals(); // also loads what restoring uses, before any test
        Policy.setPolicy(new ProgramPolicy(classpath[0]));
        System.setSecurityManager(new ExitTrap());
        // In the system group, as the JVM's own threads are: a program's Thread.activeCount() counts
        // the main group, where it would tell the runner (one thread more) from a fresh JVM.
        ThreadGroup system = Thread.currentThread().getThreadGroup().getParent();
        Thread guard = new Thread(system, JavaRunner::watch, "judge-watchdog", WATCHDOG_STACK_BYTES);
        guard.setDaemon(true);
        guard.start();
        watchdog = guard; // from here on, only the watchdog itself may touch it
        globals.discardStreams();
        long[] jvmThreads = threadIds();
        List<Counting> sealed = new ArrayList<>();
        write(line("start " + processCpuNs()));
        for (int i = 0; i < plan.size(); i++) {
            String[] f = plan.get(i).split("\t");
            Test test = new Test(f[0], f[1], f[2], Long.parseLong(f[3]) * 1_000_000L, Long.parseLong(f[4]),
                                 Math.min(cap, budget), cap);
            checkBetweenTests(jvmThreads, sealed);
            String why = test.run(classpath, mainClass, globals, jvmThreads);
            synchronized (JavaRunner.class) {
                if (why != null) {
                    stop(test.name + " " + why);
                }
                current = null;
                checkBetweenTests(jvmThreads, sealed);
                write(line("done " + test.name + " " + test.cpuNs + " " + test.wallNs + " " + test.out.digest()));
            }
            sealed.add(test.out);
            budget -= test.out.count;
            if (test.changed != null && i + 1 < plan.size()) {
                stop(plan.get(i + 1).split("\t")[0] + " " + test.changed + " changed by the previous test");
            }
        }
        synchronized (JavaRunner.class) {
            checkBetweenTests(jvmThreads, sealed);
            stopWith(line("end"));
        }
    }

    /** Nothing of the program may have run since its test ended (no late output, no new thread),
     * and the watchdog must be alive: else nothing of this run is kept. */
    private static void checkBetweenTests(long[] jvmThreads, List<Counting> sealed) {
        if (!watchdog.isAlive()) {
            abort(WATCHDOG_DIED);
        }
        for (Counting out : sealed) {
            if (out.lateWrite) {
                abort(LATE_WRITE);
            }
        }
        if (threadIds().length != jvmThreads.length) {
            abort(THREAD_BETWEEN_TESTS);
        }
    }

    private static byte[] line(String text) {
        return (text + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void write(byte[] bytes) {
        try {
            report.write(bytes);
        } catch (IOException e) {
            halt();
        }
    }

    /** The test named in LINE did not end normally: halt (the caller holds the class lock, so no
     * "done" line follows). */
    private static void stop(String line) {
        stopWith(line("stop " + line));
    }

    private static void stopWith(byte[] line) {
        write(line);
        halt();
    }

    private static void abort(byte[] line) {
        write(line);
        halt();
    }

    private static void halt() {
        runnerExit = true;
        Runtime.getRuntime().halt(0);
    }

    /** The watchdog: halts the JVM when the running test exceeds a budget; any Throwable here
     * (an OutOfMemoryError included) ends the runner. */
    private static void watch() {
        try {
            while (true) {
                Test test = current;
                byte[] why = test == null ? null : test.overBudget();
                if (why != null) {
                    synchronized (JavaRunner.class) {
                        if (current == test) {
                            stopWith(why);
                        }
                    }
                }
                Thread.sleep(POLL_MS);
            }
        } catch (Throwable e) {
            abort(WATCHDOG_DIED);
        }
    }

    /** This JVM's kernel threads. */
    private static int tasks() {
        String[] names = new java.io.File("/proc/self/task").list();
        return names == null ? 0 : names.length;
    }

    private static long processCpuNs() {
        return OS.getProcessCpuTime();
    }

    /** The ids of every live thread of this JVM, sorted (the JVM's own list: no program code runs). */
    private static long[] threadIds() {
        long[] ids = THREADS.getAllThreadIds();
        Arrays.sort(ids);
        return ids;
    }

    /** The live threads that are not in BEFORE (sorted ids). */
    private static List<ThreadInfo> newThreads(long[] before) {
        List<ThreadInfo> found = new ArrayList<>();
        long[] ids = THREADS.getAllThreadIds();
        for (long id : ids) {
            if (Arrays.binarySearch(before, id) < 0) {
                ThreadInfo info = THREADS.getThreadInfo(id, 0);
                if (info != null) {
                    found.add(info);
                }
            }
        }
        return found;
    }

    /** What a test may change in the JVM: restored when it changed (nothing of the program runs any
     * more then), or reported as a change the runner does not undo. */
    private static final class Globals {
        final Thread self = Thread.currentThread();
        final ThreadGroup group = self.getThreadGroup();
        final InputStream noInput = InputStream.nullInputStream();
        final PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
        final Properties properties = (Properties) System.getProperties().clone();
        final Locale locale = Locale.getDefault();
        final Locale display = Locale.getDefault(Locale.Category.DISPLAY);
        final Locale format = Locale.getDefault(Locale.Category.FORMAT);
        final TimeZone zone = TimeZone.getDefault();
        final ClassLoader context = self.getContextClassLoader();
        final String name = self.getName();
        final int priority = self.getPriority();
        final int groupMaxPriority = group.getMaxPriority();
        final boolean groupDaemon = group.isDaemon();

        void discardStreams() {
            System.setIn(noInput);
            System.setOut(discard);
            System.setErr(discard);
        }

        /** Every global back as before the test (only what changed is set). */
        void restore() {
            discardStreams();
            System.setProperties((Properties) properties.clone());
            if (Locale.getDefault() != locale) {
                Locale.setDefault(locale);
            }
            if (Locale.getDefault(Locale.Category.DISPLAY) != display) {
                Locale.setDefault(Locale.Category.DISPLAY, display);
            }
            if (Locale.getDefault(Locale.Category.FORMAT) != format) {
                Locale.setDefault(Locale.Category.FORMAT, format);
            }
            if (!TimeZone.getDefault().equals(zone)) {
                TimeZone.setDefault(zone);
            }
            Thread.setDefaultUncaughtExceptionHandler(null);
            self.setUncaughtExceptionHandler(null);
            self.setContextClassLoader(context);
            Thread.interrupted();
        }

        /** What the runner does not undo (a later test could read it): null if nothing. */
        String unrestored() {
            if (!self.getName().equals(name) || self.getPriority() != priority) {
                return "the main thread";
            }
            // enumerate without recursing calls no method a program's ThreadGroup could override
            if (group.getMaxPriority() != groupMaxPriority || group.isDaemon() != groupDaemon
                    || group.enumerate(new ThreadGroup[1], false) != 0) {
                return "the main thread group";
            }
            return null;
        }
    }

    /** One test: its streams, its threads, how it ended. */
    private static final class Test {
        final String name;
        final String input;
        final long cpuBudgetNs;
        final long wallBudgetMs;
        final Counting out;
        final Counting err;
        // The watchdog's lines for this test, built before it runs (the watchdog must not allocate).
        final byte[] cpuExceeded;
        final byte[] wallExceeded;
        final byte[] outputExceeded;
        final byte[] runningAfterExit;
        volatile Integer exitStatus;
        volatile long exitAtNs;
        volatile long outAtExit;
        volatile long cpu0;
        volatile long wall0;
        long cpuNs;
        long wallNs;
        String changed;

        Test(String name, String input, String output, long cpuBudgetNs, long wallBudgetMs, long outCap, long errCap)
                throws IOException {
            this.name = name;
            this.input = input;
            this.cpuBudgetNs = cpuBudgetNs;
            this.wallBudgetMs = wallBudgetMs;
            this.out = new Counting(new FileOutputStream(output), outCap);
            this.err = new Counting(OutputStream.nullOutputStream(), errCap);
            this.cpuExceeded = line("stop " + name + " cpu budget exceeded");
            this.wallExceeded = line("stop " + name + " wall budget exceeded");
            this.outputExceeded = line("stop " + name + " output cap exceeded");
            this.runningAfterExit = line("stop " + name + " still running after exit");
        }

        /** Null when the test ended normally with exit status 0, else why not. Its figures are taken
         * last, after every global is restored and its output sealed. */
        String run(URL[] classpath, String mainClass, Globals globals, long[] jvmThreads) throws Exception {
            int tasksBefore = tasks();
            cpu0 = processCpuNs();
            wall0 = System.nanoTime();
            current = this;
            String why;
            try (InputStream in = new FileInputStream(input);
                 URLClassLoader loader = new URLClassLoader(classpath, ClassLoader.getPlatformClassLoader())) {
                System.setIn(new BufferedInputStream(in));
                System.setOut(new PrintStream(new BufferedOutputStream(out, 128), true));
                System.setErr(new PrintStream(new BufferedOutputStream(err, 128), true));
                globals.self.setContextClassLoader(loader);
                String failure = invokeMain(loader, mainClass);
                why = failure != null ? failure : ended(jvmThreads, tasksBefore);
            } finally {
                globals.restore();
            }
            if (why == null && !newThreads(jvmThreads).isEmpty()) {
                why = "thread left running";
            }
            out.seal();
            err.seal();
            changed = globals.unrestored();
            cpuNs = processCpuNs() - cpu0;
            wallNs = System.nanoTime() - wall0;
            return why;
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
        String ended(long[] jvmThreads, int tasksBefore) throws InterruptedException {
            while (exitStatus == null && newThreads(jvmThreads).stream().anyMatch(t -> !t.isDaemon())) {
                Thread.sleep(1);
            }
            long until = System.nanoTime() + LEAVING_MS * 1_000_000L;
            List<ThreadInfo> left;
            while (!(left = newThreads(jvmThreads)).isEmpty() && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            if (!left.isEmpty()) {
                return "thread left running: " + left.get(0).getThreadName();
            }
            for (int i = 0; i < SETTLE_ATTEMPTS && tasks() > tasksBefore; i++) {
                Thread.sleep(1); // ended threads leave the kernel, and free their stacks, a little after
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

        /** Checked by the watchdog while the test runs: its stop line, or null while within budgets. */
        byte[] overBudget() {
            if (processCpuNs() - cpu0 > cpuBudgetNs) {
                return cpuExceeded;
            }
            if ((System.nanoTime() - wall0) / 1_000_000 > wallBudgetMs) {
                return wallExceeded;
            }
            if (out.exceeded || err.exceeded) {
                return outputExceeded;
            }
            if (exitStatus != null && (System.nanoTime() - exitAtNs) / 1_000_000 > EXIT_GRACE_MS) {
                return runningAfterExit;
            }
            return null;
        }
    }

    /** An output stream counting and hashing its bytes, dropping those past the cap; once sealed
     * it drops every byte and remembers that one came. */
    private static final class Counting extends OutputStream {
        private final OutputStream target;
        private final long cap;
        private final MessageDigest sha256;
        private String digest;
        private boolean sealed;
        volatile long count;
        volatile boolean exceeded;
        volatile boolean lateWrite;

        Counting(OutputStream target, long cap) {
            this.target = target;
            this.cap = cap;
            try {
                this.sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        synchronized void seal() throws IOException {
            sealed = true;
            digest = HexFormat.of().formatHex(sha256.digest());
            target.close();
        }

        synchronized String digest() {
            return digest;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (sealed) {
                lateWrite = true;
                return;
            }
            if (count + len > cap) {
                exceeded = true;
                return;
            }
            target.write(b, off, len);
            sha256.update(b, off, len);
            count += len;
        }

        @Override
        public void close() {
            // the runner seals it; a program closing System.out changes nothing here
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
