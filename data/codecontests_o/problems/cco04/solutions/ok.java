import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedInputStream(System.in));
        in.nextToken();
        int n = (int) in.nval;
        long d = 0, t = 0;
        for (int i = 0; i < n; i++) {
            in.nextToken();
            d += (long) in.nval;
            in.nextToken();
            t += (long) in.nval;
        }
        System.out.println((double) d / t);
    }
}
