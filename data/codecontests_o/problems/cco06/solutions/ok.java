import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt(), zeros = 0;
        for (int i = 0; i < n; i++) if (in.nextInt() == 0) zeros++;
        System.out.println(zeros);
    }
}
