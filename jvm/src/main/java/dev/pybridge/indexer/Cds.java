package dev.pybridge.indexer;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/** Has the running JVM write a dynamic class-data-sharing archive (pybridge/worker/cds.py). */
public final class Cds {
    private Cds() {}

    /**
     * {@code VM.cds dynamic_dump path}, as {@code jcmd} would send it, through the
     * DiagnosticCommand MBean; the JVM must have started with {@code -XX:+RecordDynamicDumpInfo}.
     * Returns "" when the command ran, else what went wrong.
     */
    public static String dump(String path) {
        try {
            ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmCds",
                    new Object[] {new String[] {"dynamic_dump", path}},
                    new String[] {String[].class.getName()});
            return "";
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return cause.getClass().getName() + ": " + cause.getMessage();
        }
    }
}
