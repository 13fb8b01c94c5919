import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedInputStream(System.in));
        in.nextToken();
        int q = (int) in.nval;
        StringBuilder out = new StringBuilder();
        while (q-- > 0) {
            in.nextToken(); int n = (int) in.nval;
            in.nextToken(); long r = (long) in.nval;
            TreeSet<Long> positions = new TreeSet<>(Collections.reverseOrder());
            for (int i = 0; i < n; i++) { in.nextToken(); positions.add((long) in.nval); }
            long shots = 0;
            for (long x : positions) {
                if (x - shots * r <= 0) break;
                shots++;
            }
            out.append(shots).append('\n');
        }
        System.out.print(out);
    }
}
