import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        String n = in.next(), m = in.next();
        char[] digits = n.toCharArray();
        Arrays.sort(digits);
        if (digits.length > 1 && digits[0] == '0') {
            for (int i = 1; i < digits.length; i++) {
                if (digits[i] != '0') {
                    char t = digits[0]; digits[0] = digits[i]; digits[i] = t;
                    break;
                }
            }
        }
        System.out.println(new String(digits).equals(m) ? "OK" : "WRONG_ANSWER");
    }
}
