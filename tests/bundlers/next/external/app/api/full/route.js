export { GET, POST } from "../../../../route.js";
