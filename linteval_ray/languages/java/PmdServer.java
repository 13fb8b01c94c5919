import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;

import net.sourceforge.pmd.PMDConfiguration;
import net.sourceforge.pmd.PmdAnalysis;
import net.sourceforge.pmd.lang.LanguageRegistry;
import net.sourceforge.pmd.lang.rule.RuleSet;
import net.sourceforge.pmd.lang.rule.RuleSetLoader;

/**
 * A warm PMD: {@code java -cp PMD_LIBS PmdServer.java RULESET JAVA_VERSION}.
 *
 * <p>Loading the ruleset costs ~3 CPU-seconds per PMD run (the category XML files are parsed
 * with position tracking), so it is loaded once here and reused. Each stdin line
 * {@code INPUT_DIR<TAB>REPORT_FILE} is one analysis configured as {@code pmd check -d INPUT_DIR
 * -R RULESET -f json -r REPORT_FILE --use-version java-VERSION --no-cache} would configure it;
 * each answer is one stdout line: {@code {"errors": N}} or {@code {"failure": "..."}} (any
 * Throwable of the analysis, the server goes on with the next request).
 */
public final class PmdServer {
    public static void main(String[] args) throws IOException {
        String ruleset = args[0];
        String javaVersion = args[1];
        PrintStream channel = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);  // whatever PMD prints never mixes with the protocol
        RuleSet rules = RuleSetLoader.fromPmdConfig(configuration(javaVersion)).loadFromResource(ruleset);
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        channel.println("{\"ready\": \"" + ruleset.replace("\\", "/").replace("\"", "'") + "\"}");
        for (String line = requests.readLine(); line != null; line = requests.readLine()) {
            String[] request = line.split("\t");
            PMDConfiguration config = configuration(javaVersion);
            config.addInputPath(Paths.get(request[0]));
            config.setReportFile(Paths.get(request[1]));
            try (PmdAnalysis pmd = PmdAnalysis.create(config)) {
                pmd.addRuleSet(RuleSet.copy(rules));  // fresh rule instances: no state crosses analyses
                pmd.performAnalysis();
                channel.println("{\"errors\": " + pmd.getReporter().numErrors() + "}");
            } catch (Throwable e) {
                // Per request, Errors included: a StackOverflowError or OutOfMemoryError on one hostile
                // file fails that analysis (the caller retries its files alone), never the server.
                String reason = (e.getClass().getSimpleName() + ": " + e.getMessage()).replaceAll("[\"\\\\\\p{Cntrl}]", " ");
                channel.println("{\"failure\": \"" + reason.substring(0, Math.min(reason.length(), 300)) + "\"}");
            }
        }
    }

    private static PMDConfiguration configuration(String javaVersion) {
        PMDConfiguration config = new PMDConfiguration();
        config.setDefaultLanguageVersion(LanguageRegistry.PMD.getLanguageVersionById("java", javaVersion));
        config.setIgnoreIncrementalAnalysis(true);
        config.setReportFormat("json");
        return config;
    }
}
