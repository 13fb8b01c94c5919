import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        long r = new Scanner(System.in).nextLong();
        System.out.println(Math.round(Math.PI * r * r));
    }
}
